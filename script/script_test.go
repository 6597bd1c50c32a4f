package script

import (
	"strings"
	"testing"

	"github.com/radish-kv/radish/command"
	"github.com/radish-kv/radish/engine"
	"github.com/radish-kv/radish/net/resp"
)

// storeHost runs a script's commands on one engine.Store with their
// handlers, as a shard does for keys it owns.
type storeHost struct {
	store  *engine.Store
	refuse string        // a key the host refuses (a fault)
	called chan struct{} // when set, closed at the first call
}

func (h *storeHost) Call(spec *command.Spec, args [][]byte, w *resp.Writer) bool {
	idx, _ := spec.Keys(args, nil)
	for _, i := range idx {
		if h.refuse != "" && string(args[i]) == h.refuse {
			return false
		}
	}
	c := &command.Ctx{Store: h.store, DB: h.store.DB(0), W: w, Now: 1700000000000}
	spec.Handler(c, args)
	if h.called != nil {
		close(h.called)
		h.called = nil
	}
	return true
}

func (h *storeHost) OutOfMemory() bool { return false }

func (h *storeHost) Permit(spec *command.Spec, args [][]byte) string { return "" }

// eval runs body with keys and argv on r and returns the raw reply.
func eval(t *testing.T, r *Runtime, h Host, proto int, ro bool, body string, keys, argv []string) string {
	t.Helper()
	s, errText := r.Load([]byte(body))
	if errText != "" {
		return "-" + errText + "\r\n"
	}
	w := resp.Writer{Proto: proto}
	var k, a [][]byte
	for _, x := range keys {
		k = append(k, []byte(x))
	}
	for _, x := range argv {
		a = append(a, []byte(x))
	}
	if !r.Run(s, &Call{Keys: k, Argv: a, ReadOnly: ro, Host: h}, &w) {
		return "<abandoned>"
	}
	return string(w.B)
}

// TestRun checks sandbox, library and conversions against replies of
// redis-server 7.0.15 (EVAL body 0, raw RESP).
func TestRun(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	h := &storeHost{store: store}
	r := New(&Registry{}, nil)
	for _, tc := range []struct {
		proto int
		body  string
		want  string
	}{
		{2, "return x", "-ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: 03c387736bb5cc009ff35151572cee04677aa374, on @user_script:1.\r\n"},
		{2, "rawset(_G, 'x', 1)", "-ERR Attempt to modify a readonly table script: e2c706419da183d6229a1230c3be09cc32cdeee0, on @user_script:1.\r\n"},
		{2, "table.insert(_G, 'x')", "-ERR Attempt to modify a readonly table script: fb12a92fa0f7cedd822c65080ddf723ec37aec92, on @user_script:1.\r\n"},
		{2, "table.insert(string, 1, 'x')", "-ERR Attempt to modify a readonly table script: 5bdc3c616a3d9adccd439e9a063d19d1a0c8beeb, on @user_script:1.\r\n"},
		{2, "table.remove(redis)", "$-1\r\n"},
		{2, "table.sort(cjson)", "$-1\r\n"},
		{2, "local t = {}; rawset(t, 'a', 1); table.insert(t, 2); table.sort(t); return {t.a, t[1], #t}", "*3\r\n:1\r\n:2\r\n:1\r\n"},
		{2, "x=1", "-ERR user_script:1: Attempt to modify a readonly table script: 7caf6056913504f0508c65faf2dc3f94ff65bcfd, on @user_script:1.\r\n"},
		{2, "redis.x=1", "-ERR user_script:1: Attempt to modify a readonly table script: 5b2bc017c4ad02e0a4040b10e3482419e45c58b0, on @user_script:1.\r\n"},
		{2, "string.x = 1", "-ERR user_script:1: Attempt to modify a readonly table script: c3eb0a2a15b3d4790b323c4104029c1ae425a769, on @user_script:1.\r\n"},
		{2, "return os", "-ERR user_script:1: Script attempted to access nonexistent global variable 'os' script: f03b5ad6e7d58786b6a5e879efbea4a4408f5c2f, on @user_script:1.\r\n"},
		{2, "return dofile", "-ERR user_script:1: Script attempted to access nonexistent global variable 'dofile' script: 0c5f629ecf4a281cada464398cd571c2f6828b27, on @user_script:1.\r\n"},
		{2, "return print", "-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: df4c752a7558004676bbee87e38b92e0b9056d68, on @user_script:1.\r\n"},
		{2, "return _G.x", "-ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: a77ae67de163f975b1ed8463acc72469cf24a035, on @user_script:1.\r\n"},
		{2, "local a = 1\nlocal b = 2\nreturn x", "-ERR user_script:3: Script attempted to access nonexistent global variable 'x' script: 38f2bdf48901babb7d608825ad099a86c08a2e9b, on @user_script:3.\r\n"},
		{2, "local function f()\n return y\nend\nreturn f()", "-ERR user_script:2: Script attempted to access nonexistent global variable 'y' script: a72a085a54fe897188fec37d34b7816b2c23490f, on @user_script:2.\r\n"},
		{2, `return redis.call("nosuch")`, "-ERR Unknown Redis command called from script script: 2218effcac8108416909801acfb39c080a85adfa, on @user_script:1.\r\n"},
		{2, "local a = 1\nlocal b = 2\nreturn redis.call('nosuch')", "-ERR Unknown Redis command called from script script: 42d5a5e856820587892f7a681c6d5b2b19317133, on @user_script:3.\r\n"},
		{2, `return redis.call("get")`, "-ERR Wrong number of args calling Redis command from script script: ad9cf9305028be601cfd2abed4ce895eb41a4a6f, on @user_script:1.\r\n"},
		{2, `return redis.call("subscribe","a")`, "-ERR This Redis command is not allowed from script script: dab8c48b11f670f8237c66a535994a637c446cb5, on @user_script:1.\r\n"},
		{2, `return redis.pcall("nosuch")`, "-ERR Unknown Redis command called from script\r\n"},
		{2, "return redis.pcall('get')", "-ERR Wrong number of args calling Redis command from script\r\n"},
		{2, "return redis.call()", "-ERR Please specify at least one argument for this redis lib call script: 0a907e1429221a4d85516cab7fd219a82a9439d8, on @user_script:1.\r\n"},
		{2, "return redis.call('get', {})", "-ERR Lua redis lib command arguments must be strings or integers script: 4368e88f98d93af9caf358186e5fbf273374ee91, on @user_script:1.\r\n"},
		{2, "local ok, e = pcall(function() return redis.call('nosuch') end); return e", "$44\r\nERR Unknown Redis command called from script\r\n"},
		{2, "return {1,2,3.7,nil,5}", "*3\r\n:1\r\n:2\r\n:3\r\n"},
		{2, "return {1, 'a', {ok='x'}, {err='y'}}", "*4\r\n:1\r\n$1\r\na\r\n+x\r\n-y\r\n"},
		{2, "return {err='NOPE thing'}", "-NOPE thing\r\n"},
		{2, "return redis.error_reply('')", "-ERR \r\n"},
		{2, "return redis.error_reply('-X y')", "-X y\r\n"},
		{2, "return redis.error_reply('my err')", "-my err\r\n"},
		{2, "return redis.status_reply()", "-ERR wrong number or type of arguments\r\n"},
		{2, "return true", ":1\r\n"},
		{2, "return false", "$-1\r\n"},
		{3, "return false", "_\r\n"},
		{3, "redis.setresp(3); return false", "#f\r\n"},
		{3, "redis.setresp(3); return {1, false}", "*2\r\n:1\r\n#f\r\n"},
		{2, "return 3.99", ":3\r\n"},
		{2, "return -3.5", ":-3\r\n"},
		{2, "return 1/0", ":-9223372036854775808\r\n"},
		{2, "return {1, 0/0}", "*2\r\n:1\r\n:-9223372036854775808\r\n"},
		{2, `error("boom")`, "-ERR user_script:1: boom script: 872b3fcb081448525c6141cdfa3df8374d30d162, on @user_script:1.\r\n"},
		{2, "local a = 1\nerror('zz')", "-ERR user_script:2: zz script: 44f6f27a2e2f07d4ec3135e5d1cbe9ed30bb1a25, on @user_script:2.\r\n"},
		{2, "error('zz', 0)", "-ERR zz script: c6d2af2af188901a44f1c75597aea420906bf320, on @user_script:1.\r\n"},
		{2, `error({err="X boom"})`, "-X boom script: d7d713e40f75be26f8188ff51a68bc062782ad48, on @user_script:1.\r\n"},
		{2, "error(12)", "-ERR user_script:1: 12 script: 531d78cb0a3022f46aa8fcca247caa61d303b321, on @user_script:1.\r\n"},
		{2, "error()", "-ERR nil script: aca90d914519fdb9825352bdc0befb59f7c8510f, on @user_script:1.\r\n"},
		{2, `return redis.sha1hex("")`, "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"},
		{2, "return redis.sha1hex(1)", "$40\r\n356a192b7913b04c54574d18c28d46e6395428ab\r\n"},
		{2, "return redis.sha1hex()", "-ERR wrong number of arguments script: 3c7ce947ae74a835cc575b6ee87fb27503cb7ba4, on @user_script:1.\r\n"},
		{2, "return redis.REDIS_VERSION", "$6\r\n7.0.15\r\n"},
		{2, "return server.REDIS_VERSION", "$6\r\n7.0.15\r\n"},
		{2, "redis.setresp(4)", "-ERR RESP version must be 2 or 3. script: 68e72e4d8a428b9f599dce492315f2455a425a82, on @user_script:1.\r\n"},
		{2, "return redis.setresp()", "-ERR redis.setresp() requires one argument. script: 76da64e28014e7c9ad76db33c3918c53d81a3d7e, on @user_script:1.\r\n"},
		{2, "return redis.log()", "-ERR redis.log() requires two arguments or more. script: 28e28bf25123668ac541f5eec91bf7ad3d2fe0bd, on @user_script:1.\r\n"},
		{2, "return redis.log(99, 'x')", "-ERR Invalid debug level. script: d1ccc394357733a87e4372af693b49d6582b5c58, on @user_script:1.\r\n"},
		{2, "return redis.set_repl(99)", "-ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script: fae934173b6296d6836d5d5f52e192640f8897d9, on @user_script:1.\r\n"},
		{2, "return redis.replicate_commands()", ":1\r\n"},
		{2, "return redis.breakpoint()", "$-1\r\n"},
		{2, "return {1,{2,{3}},'a'}", "*3\r\n:1\r\n*2\r\n:2\r\n*1\r\n:3\r\n$1\r\na\r\n"},
		{2, "return redis.call('ping')", "+PONG\r\n"},
		{2, `redis.call("set","k","v"); return redis.call("lpush","k","x")`, "-WRONGTYPE Operation against a key holding the wrong kind of value script: 43679eb8d6c02cb4b07d5ab748ccbe6e75d67a90, on @user_script:1.\r\n"},
		{2, "return redis.pcall('lpush','k','x')", "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{2, "return redis.call('set', 'k', 1.5)", "+OK\r\n"},
		{2, "return redis.call('get', 'k')", "$3\r\n1.5\r\n"},
		{2, "return {map={a=1}}", "*2\r\n$1\r\na\r\n:1\r\n"},
		{3, "return {map={a=1}}", "%1\r\n$1\r\na\r\n:1\r\n"},
		{3, "return {double=3.5}", ",3.5\r\n"},
		{2, "return {double=3.5}", "$3\r\n3.5\r\n"},
		{3, "return {big_number='123'}", "(123\r\n"},
		{3, "return {set={a=true}}", "~1\r\n$1\r\na\r\n"},
		{3, "return {verbatim_string={format='txt', string='hi'}}", "=6\r\ntxt:hi\r\n"},
		{3, "return nil", "_\r\n"},
		{3, "return true", ":1\r\n"},
		{2, "return redis.call('hset','h','a','1')", ":1\r\n"},
		{3, "redis.setresp(3); return redis.call('hgetall','h')", "%1\r\n$1\r\na\r\n$1\r\n1\r\n"},
		{3, "return redis.call('hgetall','h')", "*2\r\n$1\r\na\r\n$1\r\n1\r\n"},
		{3, "redis.setresp(3); local r = redis.call('get','nokey'); return r == nil", "#t\r\n"},
		{2, "local r = redis.call('get','nokey'); return r == false", ":1\r\n"},
		{3, "redis.setresp(3); return redis.call('zadd','zz','1.5','a')", ":1\r\n"},
		{3, "redis.setresp(3); return redis.call('zscore','zz','a')", ",1.5\r\n"},
		{3, "redis.setresp(3); return type(redis.call('zscore','zz','a'))", "$5\r\ntable\r\n"},
		{3, "redis.setresp(3); return redis.call('smembers','nosuchset')", "~0\r\n"},
		{2, "return KEYS", "*0\r\n"},
		{2, "return 'x' .. nil", ""},
		{2, "return _VERSION", "$7\r\nLua 5.1\r\n"},
		{2, "return getmetatable('').__index == string", ":1\r\n"},
		{2, "return loadstring('return 1')()", ":1\r\n"},
		{2, "return tostring(1.5)", "$3\r\n1.5\r\n"},
		// Numbers read by strtod and written by "%.14g", as redis-server's
		// Lua does (its replies).
		{2, "return tostring(10/3)", "$15\r\n3.3333333333333\r\n"},
		{2, "return tostring(2^53)", "$18\r\n9.007199254741e+15\r\n"},
		{2, "return {tostring(1/0), tostring(-1/0), tostring(0/0), tostring(-0.0)}", "*4\r\n$3\r\ninf\r\n$4\r\n-inf\r\n$4\r\n-nan\r\n$2\r\n-0\r\n"},
		{2, "return tonumber('9223372036854775808')", ":-9223372036854775808\r\n"},
		{2, "return {tostring(tonumber(' 0x1p4 ')), tostring(tonumber('0x1.8')), tostring(tonumber('1e400')), tostring(tonumber('nan'))}", "*4\r\n$2\r\n16\r\n$3\r\n1.5\r\n$3\r\ninf\r\n$3\r\nnan\r\n"},
		{2, "return {tonumber('1e'), tonumber('0x'), tonumber('1_0'), tonumber('12', 2), tonumber({})}", "*0\r\n"},
		{2, "return {tonumber('-ff', 16) == 2^64 - 255, tonumber(' 11 ', 2), tonumber('zz', 36)}", "*3\r\n:1\r\n:3\r\n:1295\r\n"},
		{2, "return tonumber('1', 99)", "-ERR user_script:1: bad argument #2 to 'tonumber' (base out of range) script: 5c995896944992e56c7d8a78db88e8fc3fe9579d, on @user_script:1.\r\n"},
		// string.format and table.concat as Lua 5.1's (C's sprintf).
		{2, "return string.format('%s|%g|%e|%5.1f|%-4d|%+d|%05d|%x|%u', 1/3, 1/3, 1/3, 3.14159, 42, 5, -5, 255, -1)", "$82\r\n0.33333333333333|0.333333|3.333333e-01|  3.1|42  |+5|-0005|ff|18446744073709551615\r\n"},
		{2, "return string.format('%q|%.3s|%5s|%c%c', 'a\"b\\n\\0', 'abcdef', 'ab', 72, 105)", "$25\r\n\"a\\\"b\\\n\\000\"|abc|   ab|Hi\r\n"},
		{2, "return string.format('%f|%5.2f|%+f|%G', 1/0, -1/0, 1/0, 0/0)", "$19\r\ninf| -inf|+inf|-NAN\r\n"},
		{2, "return string.format('%d')", "-ERR user_script:1: bad argument #2 to 'format' (no value) script: 05feaa4990f14508c855a12844d0665b829def5d, on @user_script:1.\r\n"},
		{2, "return string.format('%y', 1)", "-ERR user_script:1: invalid option '%y' to 'format' script: 5f049edbcb538c8748f6d1d19449a7474c6106bf, on @user_script:1.\r\n"},
		{2, "return table.concat({1/3, 2, 'x'}, ',') .. '|' .. table.concat({1, 2, 3}, '-', 2, 3)", "$24\r\n0.33333333333333,2,x|2-3\r\n"},
		{2, "return table.concat({1, {}, 3})", "-ERR user_script:1: invalid value (table) at index 2 in table for 'concat' script: 1256855af13e156c2831028e4a486ab1d403bde8, on @user_script:1.\r\n"},
		{2, "return tostring()", "-ERR user_script:1: bad argument #1 to 'tostring' (value expected) script: b3870418043f3698962b400fd4ccc5dd4e449625, on @user_script:1.\r\n"},
		{2, "return string.format('%.2f', 1.234)", "$4\r\n1.23\r\n"},
		{2, "return table.concat({1,2}, ',')", "$3\r\n1,2\r\n"},
		{2, "return 1 +", "-ERR Error compiling script (new function): user_script:1: unexpected symbol near '<eof>'\r\n"},
		{2, "#!lua flags=no-writes\nreturn 1", ":1\r\n"},
		{2, "return cjson.encode({1,2,'a/b',{x=1}, true})", "$25\r\n[1,2,\"a\\/b\",{\"x\":1},true]\r\n"},
		{2, "return cjson.encode({})", "$2\r\n{}\r\n"},
		{2, "return cjson.encode(nil)", "$4\r\nnull\r\n"},
		{2, "return cjson.encode({[1]=1,[3]=3})", "$10\r\n[1,null,3]\r\n"},
		{2, "return cjson.encode({[1]=1,[20]=3})", "-ERR user_script:1: Cannot serialise table: excessively sparse array script: 599049a94af36a079b8c19b2e9635d7951cda076, on @user_script:1.\r\n"},
		{2, "return cjson.encode(1e20)", "$5\r\n1e+20\r\n"},
		{2, "return cjson.encode({a=1.5})", "$9\r\n{\"a\":1.5}\r\n"},
		{2, `local t = cjson.decode('[1,2,{"a":null,"b":[true,false]}]'); return {t[1], t[2], type(t[3].a), tostring(t[3].b[1])}`, "*4\r\n:1\r\n:2\r\n$8\r\nuserdata\r\n$4\r\ntrue\r\n"},
		{2, `return cjson.decode('{"a":1}').a`, ":1\r\n"},
		{2, "return cjson.decode('[1,')", "-ERR user_script:1: Expected value but found T_END at character 4 script: ad8248c68c719abd59f0dd09dea378bb946e7d3f, on @user_script:1.\r\n"},
		{2, "return cjson.decode('x')", "-ERR user_script:1: Expected value but found invalid token at character 1 script: 5f58dd5cefb3eb0313af3534f36be4b83e79ae80, on @user_script:1.\r\n"},
		{2, `return cjson.decode('"\\u00e9"')`, "$2\r\n\xc3\xa9\r\n"},
		{2, `return cjson.encode(cjson.decode('{"a":[1,2.5,"x"]}'))`, "$17\r\n{\"a\":[1,2.5,\"x\"]}\r\n"},
		{2, "return type(cjson.null)", "$8\r\nuserdata\r\n"},
		{2, "return {bit.tobit(0xffffffff), bit.tohex(255), bit.tohex(-1, -4), bit.bnot(0), bit.band(0xff, 0x0f, 0x3), bit.bor(1,2,4), bit.bxor(5,1), bit.lshift(1, 31), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.rol(0x12345678, 8), bit.ror(0x12345678, 8), bit.bswap(0x12345678)}",
			"*13\r\n:-1\r\n$8\r\n000000ff\r\n$4\r\nFFFF\r\n:-1\r\n:3\r\n:7\r\n:4\r\n:-2147483648\r\n:15\r\n:-16\r\n:878082066\r\n:2014458966\r\n:2018915346\r\n"},
		{2, "return bit.tohex(0x12345678, 4)", "$4\r\n5678\r\n"},
		{2, "cjson.x = 1", "-ERR user_script:1: Attempt to modify a readonly table script: 4b2ca7db0bf72ed85cdead5baca2fcaf0f05131c, on @user_script:1.\r\n"},
		{2, "#!lua flags=bad\nreturn 1", "-ERR Unexpected flag in script shebang: bad\r\n"},
		{2, "#!py\nreturn 1", "-ERR Could not find scripting engine 'py'\r\n"},
	} {
		got := eval(t, r, h, tc.proto, false, tc.body, nil, nil)
		if tc.want == "" {
			if !strings.HasPrefix(got, "-ERR user_script:1: ") {
				t.Errorf("RESP%d %q = %q, want a runtime error", tc.proto, tc.body, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("RESP%d %q\n got %q\nwant %q", tc.proto, tc.body, got, tc.want)
		}
	}
}

// TestRunReadOnly: a read-only run refuses writes with Redis's text.
func TestRunReadOnly(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	r := New(&Registry{}, nil)
	got := eval(t, r, &storeHost{store: store}, 2, true, "return redis.call('set','a','b')", []string{"a"}, nil)
	want := "-ERR Write commands are not allowed from read-only scripts. script: ff967d0ae0e68b4f9e360fa91c54598bc25ad9b6, on @user_script:1.\r\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRunAbandoned: a run whose host refuses a command is abandoned, even
// when the script catches errors with pcall, and the Runtime runs the
// next script normally.
func TestRunAbandoned(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	r := New(&Registry{}, nil)
	h := &storeHost{store: store, refuse: "far"}
	body := "pcall(function() redis.call('get', KEYS[1]) end); return redis.call('set', 'near', 'x')"
	if got := eval(t, r, h, 2, false, body, []string{"far"}, nil); got != "<abandoned>" {
		t.Errorf("got %q, want the run abandoned", got)
	}
	if got := eval(t, r, h, 2, false, "return ARGV[1]", nil, []string{"v"}); got != "$1\r\nv\r\n" {
		t.Errorf("after an abandoned run: %q", got)
	}
}

// TestRegistry: a script loaded by one Runtime is known to another;
// a flush forgets it on both; Memory counts the scripts' and libraries'
// bytes.
func TestRegistry(t *testing.T) {
	reg := &Registry{}
	a, b := New(reg, nil), New(reg, nil)
	s, errText := a.Load([]byte("return 1"))
	if errText != "" || s.SHA != "e0e1f9fabfc9d4800c877a703b823ac0578ff8db" {
		t.Fatalf("Load = %v %q", s, errText)
	}
	if _, ok := b.Get(s.SHA); !ok {
		t.Fatal("the other runtime does not know the script")
	}
	if eval, funcs := reg.Memory(); eval != 40+8 || funcs != 0 {
		t.Fatalf("Memory = %d, %d; want the SHA and body's 48 bytes, none", eval, funcs)
	}
	lib := &Library{Name: "lib", Code: "#!lua name=lib\nredis.register_function('f', function() return 1 end)",
		Funcs: []Func{{Name: "f", Desc: "one"}}}
	if e := reg.PutLibrary(lib, false); e != "" {
		t.Fatal(e)
	}
	if _, funcs := reg.Memory(); funcs != int64(3+len(lib.Code)+1+3) {
		t.Fatalf("Memory of a library = %d", funcs)
	}
	reg.Flush()
	if _, ok := a.Get(s.SHA); ok {
		t.Fatal("a flushed script is still known")
	}
	if eval, _ := reg.Memory(); eval != 0 {
		t.Fatalf("Memory after a flush = %d", eval)
	}
}

// TestKill: a run that loops is stopped by Kill from another goroutine
// and answers Redis's error; a run that wrote is not (UNKILLABLE); with
// nothing running, Kill answers NOTBUSY.
func TestKill(t *testing.T) {
	store := engine.NewStore(16)
	defer store.Close()
	h := &storeHost{store: store}
	r := New(&Registry{}, nil)
	if got := r.Killer.Kill(false); got != "NOTBUSY No scripts in execution right now." {
		t.Fatalf("Kill with nothing running = %q", got)
	}
	done := make(chan string)
	go func() { done <- eval(t, r, h, 2, false, "local i = 0 while true do i = i + 1 end", nil, nil) }()
	for r.Killer.Kill(false) != "" {
	}
	// One line: wherever the kill lands, it lands on line 1.
	want := "-ERR Script killed by user with SCRIPT KILL... script: 3fcf51a9b854b8f66cb8685600b0d7df968f4398, on @user_script:1.\r\n"
	if got := <-done; got != want {
		t.Errorf("killed run = %q, want %q", got, want)
	}
	h.called = make(chan struct{})
	called := h.called
	go func() {
		done <- eval(t, r, h, 2, false, "redis.call('set', 'k', 'v')\nlocal i = 0\nwhile i < 1e7 do i = i + 1 end\nreturn i", nil, nil)
	}()
	<-called
	if got := r.Killer.Kill(false); !strings.HasPrefix(got, "UNKILLABLE ") {
		t.Errorf("Kill of a run that wrote = %q", got)
	}
	if got := <-done; got != ":10000000\r\n" {
		t.Errorf("the run that wrote answered %q", got)
	}
}

// FuzzLoad: any script body (EVAL's, SCRIPT LOAD's, a FUNCTION library's
// code is compiled the same way) compiles or answers an error, never a
// panic in the parser or the compiler.
func FuzzLoad(f *testing.F) {
	for _, body := range []string{
		"return 1", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "local t = {} for i = 1, 10 do t[i] = i end return t",
		"return 'a' .. 1 / 3", "x = function(...) return select('#', ...) end", "return {1, {2, {3}}, err = 'x'}",
		"#!lua name=lib\nredis.register_function('f', function() return 1 end)", "goto x ::x::", "return ((((1))))", "--[[ unclosed",
	} {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) {
		r := New(&Registry{}, nil)
		if s, errText := r.Load([]byte(body)); (s == nil) == (errText == "") {
			t.Fatalf("Load(%q) = %v, %q", body, s, errText)
		}
	})
}
