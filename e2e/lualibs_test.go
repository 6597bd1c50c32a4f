package e2e

import (
	"bytes"
	"fmt"
	"os/exec"
	"testing"
)

// strs turns a script's results into strings that keep every bit of a
// number (a reply would truncate it).
const strs = "local function strs(...) local t = {...}; for i = 1, select('#', ...) do local v = t[i]; " +
	"if type(v) == 'number' then t[i] = string.format('%.17g', v) elseif type(v) ~= 'string' then t[i] = type(v) .. ':' .. tostring(v ~= nil and type(v) ~= 'table') end end; " +
	"return t end\n"

// luaLibCases are cmsgpack and struct calls whose replies (the packed
// bytes, the unpacked values, the errors) must be redis-server's, byte
// for byte.
var luaLibCases = []string{
	// cmsgpack: every encoding of numbers, strings, arrays and one-key maps.
	"return cmsgpack.pack(0, 1, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, 2^53)",
	"return cmsgpack.pack(-1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649, -2^53)",
	"return cmsgpack.pack(0.5, 1.1, -2.25, 1e300, 1/0, -1/0, 2^63, -2^63, 2^64)",
	"return cmsgpack.pack('', 'a', string.rep('x', 31), string.rep('y', 32), string.rep('z', 255), string.rep('w', 256))",
	"return #cmsgpack.pack(string.rep('v', 65535)) .. ' ' .. #cmsgpack.pack(string.rep('v', 65536))",
	"return cmsgpack.pack(true, false, nil)",
	"return cmsgpack.pack({}, {1, 2, 3}, {a = 1}, {{1}, {b = {2}}})",
	"local t = {}; for i = 1, 16 do t[i] = i end; return cmsgpack.pack(t)",
	"local t = {}; for i = 1, 70000 do t[i] = i % 3 end; return #cmsgpack.pack(t)",
	"local t = {}; local c = t; for i = 1, 20 do c[1] = {}; c = c[1] end; return cmsgpack.pack(t)",
	"return cmsgpack.pack({[1] = 'a', [2] = 'b'}, {[2] = 'x'}, {[1.5] = 'y'}, {[-1] = 'z'})",
	"return cmsgpack.pack(redis.call('ping'))",
	"return cmsgpack.pack()",
	strs + "return strs(cmsgpack.unpack(cmsgpack.pack(1, -1, 300, -300, 70000, -70000, 5000000000, -5000000000, 0.5, 1.1, 'str', true, false)))",
	strs + "return strs(cmsgpack.unpack('\\204\\200\\208\\128\\205\\1\\2\\209\\255\\0\\206\\0\\0\\1\\0\\210\\255\\255\\255\\0\\207\\0\\0\\0\\1\\0\\0\\0\\0\\211\\255\\255\\255\\255\\0\\0\\0\\0'))",
	strs + "return strs(cmsgpack.unpack('\\202\\63\\192\\0\\0\\203\\63\\241\\153\\153\\153\\153\\153\\154\\192\\195\\194\\217\\2hi\\218\\0\\1z\\219\\0\\0\\0\\1q'))",
	"return cmsgpack.unpack(cmsgpack.pack({1, {2, 3}, 'x'}))",
	"local t = cmsgpack.unpack(cmsgpack.pack({a = 1})); return t.a",
	"local t = cmsgpack.unpack('\\222\\0\\1\\161k\\161v'); return t.k",
	"local t = cmsgpack.unpack('\\220\\0\\2\\1\\2'); return t",
	"return cmsgpack.unpack('\\205')",
	"return cmsgpack.unpack('\\193')",
	"return cmsgpack.unpack('\\146\\1')",
	"return cmsgpack.unpack('\\217\\5ab')",
	"return cmsgpack.unpack('\\129\\192\\1')",
	"return cmsgpack.unpack()",
	"return cmsgpack.unpack({})",
	"return {cmsgpack.unpack('')}",
	"local s = cmsgpack.pack(1, 2, 3); return {cmsgpack.unpack_one(s)}",
	"local s = cmsgpack.pack(1, 2, 3); return {cmsgpack.unpack_one(s, 1)}",
	"local s = cmsgpack.pack(1, 2, 3); return {cmsgpack.unpack_one(s, 2)}",
	"local s = cmsgpack.pack(1, 2, 3); return {cmsgpack.unpack_one(s, 3)}",
	"local s = cmsgpack.pack(1, 2, 3); return {cmsgpack.unpack_one(s, 4)}",
	"local s = cmsgpack.pack(1, 2, 3); return {cmsgpack.unpack_one(s, -1)}",
	"local s = cmsgpack.pack(1, 'abc', 3, 4); return {cmsgpack.unpack_limit(s, 2)}",
	"local s = cmsgpack.pack(1, 'abc', 3, 4); return {cmsgpack.unpack_limit(s, 2, 1)}",
	"local s = cmsgpack.pack(1, 'abc', 3, 4); return {cmsgpack.unpack_limit(s, 10, 5)}",
	"local s = cmsgpack.pack(1, 'abc', 3, 4); return {cmsgpack.unpack_limit(s, 0, 5)}",
	"local s = cmsgpack.pack(1, 'abc', 3, 4); return {cmsgpack.unpack_limit(s)}",
	"local s = cmsgpack.pack(1, 2); return {cmsgpack.unpack_limit(s, 'x')}",
	"return {cmsgpack._NAME, cmsgpack._VERSION, cmsgpack._COPYRIGHT, cmsgpack._DESCRIPTION}",
	"cmsgpack.pack = nil",
	// struct.
	"return struct.pack('>i', 1) .. struct.pack('<i', 1) .. struct.pack('i', -2)",
	"return struct.pack('b', -1) .. struct.pack('B', 255) .. struct.pack('h', -3) .. struct.pack('>H', 258)",
	"return struct.pack('l', -3) .. struct.pack('>L', 3) .. struct.pack('T', 5)",
	"return struct.pack('i1', 7) .. struct.pack('>i3', -2) .. struct.pack('I3', 1193046) .. struct.pack('<i8', -1) .. struct.pack('>i12', -1) .. struct.pack('<I16', 2^40)",
	"return struct.pack('f', 1.5) .. struct.pack('>f', -0.1) .. struct.pack('d', 1.5) .. struct.pack('>d', 0.1)",
	"return struct.pack('c3', 'abcdef') .. struct.pack('c0', 'hello') .. struct.pack('s', 'hi') .. struct.pack('c2', 12345)",
	"return struct.pack('!4 b i', 1, 2) .. struct.pack('! b d', 1, 2) .. struct.pack('bxh', 1, 2) .. struct.pack(' > I2 ', 7)",
	"return struct.pack('!2 b h b i', 1, 2, 3, 4) .. struct.pack('!b l', 1, 2) .. struct.pack('!1 b d', 1, 2)",
	"return struct.pack('i', '12') .. struct.pack('i', 3.9) .. struct.pack('i', -3.9) .. struct.pack('B', 256) .. struct.pack('I', 2^32 + 5)",
	"return struct.pack('')",
	strs + "return strs(struct.unpack('>i', '\\0\\0\\0\\1'))",
	strs + "return strs(struct.unpack('<h >h b B', struct.pack('<h >h b B', -2, -2, -5, 250)))",
	strs + "return strs(struct.unpack('l L T', struct.pack('l L T', -7, 7, 9)))",
	strs + "return strs(struct.unpack('i3 I3 >i5 <i12', struct.pack('i3 I3 >i5 <i12', -2, 70000, -3, 5)))",
	strs + "return strs(struct.unpack('f d >f >d', struct.pack('f d >f >d', 1.1, 1.1, -2.5, -2.5)))",
	strs + "return strs(struct.unpack('b c0 s c2', '\\3abcxy\\0zz'))",
	strs + "return strs(struct.unpack('i', struct.pack('bi', 1, 9), 2))",
	strs + "return strs(struct.unpack('!4 b i', struct.pack('!4 b i', 1, 2)))",
	strs + "return strs(struct.unpack('x b', '\\1\\2'))",
	"return {struct.size('i'), struct.size('!8 b d'), struct.size('c10'), struct.size('bhlT'), struct.size('!4 b h b i'), struct.size('')}",
	"return struct.size('s')",
	"return struct.size('c0')",
	"return struct.size('q')",
	"return struct.size('i40')",
	"return struct.pack('i', 'x')",
	"return struct.pack('i')",
	"return struct.pack('b c3', 1)",
	"return struct.unpack('i', 'ab')",
	"return struct.pack('q', 1)",
	"return struct.unpack('>i', 'abcd', 0)",
	"return struct.unpack('>i', 'abcd', 2)",
	"return struct.pack('i33', 1)",
	"return struct.pack('!3', 1)",
	"return struct.unpack('c0', 'abc')",
	"return struct.unpack('b c0', '\\9abc')",
	"return struct.unpack('s', 'ab')",
	"return struct.pack('c5', 'ab')",
	"return struct.pack('i99999999999', 1)",
	"return struct.pack()",
	"return struct.unpack('i')",
	"local f = struct.pack; return f('i')",
	"struct.x = 1",
}

// TestLuaLibsAgainstRedis runs luaLibCases on radish-server (2 shards)
// and redis-server, RESP2 and RESP3, and requires byte-identical replies.
func TestLuaLibsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed (apt-get install redis-server):", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "2")
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("RESP%d", proto), func(t *testing.T) {
			a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
			for _, body := range luaLibCases {
				args := []string{"EVAL", body, "0"}
				got, want := a.do(t, args)[0], b.do(t, args)[0]
				if !bytes.Equal(got, want) {
					t.Errorf("%s\nradish replied %q\nredis  replied %q", body, got, want)
				}
			}
		})
	}
}
