package e2e

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Replies with times in them are compared by shape: the servers are asked
// one after the other, so idle times and delivery times differ.
var (
	maskStamp = regexp.MustCompile(`:1\d{12}\r\n`)
	maskIdle  = regexp.MustCompile(`(\$4\r\nidle\r\n):\d+\r\n`)
	// an XPENDING entry: ID, consumer, idle, count
	maskPendingIdle = regexp.MustCompile(`(\*4\r\n\$\d+\r\n\d+-\d+\r\n\$\d+\r\n[^\r]*\r\n):\d+\r\n`)
)

func maskTimes(b []byte) []byte {
	b = maskStamp.ReplaceAll(b, []byte(":T\r\n"))
	b = maskIdle.ReplaceAll(b, []byte("${1}:I\r\n"))
	return maskPendingIdle.ReplaceAll(b, []byte("${1}:I\r\n"))
}

// TestStreamGroupsAgainstRedis sends consumer group commands (every
// subcommand and option, their errors, deleted entries in PELs, XDEL and
// DEL with groups, MULTI) to radish (three shards) and redis-server,
// RESP2 and RESP3, and requires the same replies (times masked).
func TestStreamGroupsAgainstRedis(t *testing.T) {
	redisBin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatal("redis-server is needed:", err)
	}
	ref := startRedis(t, redisBin)
	s := start(t, "--shards", "3")
	script := `
SET str x
XGROUP CREATE s g 0
XGROUP CREATE s g 0 MKSTREAM
XGROUP CREATE s g bad MKSTREAM
XGROUP CREATE str g 0
XGROUP CREATE s g2 $
XGROUP CREATE s g2 0
XINFO GROUPS s
XADD s 1-1 a 1
XADD s 2-1 b 2
XADD s 3-1 c 3 d 4
XADD s 4-1 a 5
XGROUP CREATE s g3 0 FOO
XGROUP CREATE s g3 0 ENTRIESREAD abc
XGROUP CREATE s g3 0 ENTRIESREAD -2
XGROUP CREATE s g3 + 
XGROUP CREATE s g3 2-0 ENTRIESREAD 1
XGROUP CREATE s g4 5-5 ENTRIESREAD 9 MKSTREAM
XGROUP CREATE s g
XGROUP FOO s g
XGROUP HELP
XGROUP HELP extra
XINFO GROUPS s
XINFO STREAM s
XREADGROUP GROUP g alice COUNT 2 STREAMS s >
XREADGROUP GROUP g alice STREAMS s 0
XREADGROUP GROUP g bob NOACK COUNT 1 STREAMS s >
XREADGROUP GROUP g carol STREAMS s >
XREADGROUP GROUP g carol STREAMS s >
XREADGROUP GROUP g dave STREAMS s 0
XREADGROUP GROUP g alice STREAMS s
XREADGROUP GROUP g alice STREAMS s > s2
XREADGROUP STREAMS s >
XREADGROUP GROUP g alice STREAMS s $
XREADGROUP GROUP g alice COUNT x STREAMS s >
XREADGROUP GROUP g alice BLOCK -1 STREAMS s >
XREADGROUP GROUP g alice FOO STREAMS s >
XREADGROUP GROUP g alice STREAMS nokey >
XREADGROUP GROUP nog alice STREAMS s >
XREADGROUP GROUP g alice STREAMS s bad
XREADGROUP GROUP g alice STREAMS str >
XREADGROUP GROUP g alice STREAMS s 0 nokey 0
XREADGROUP GROUP g alice STREAMS s (1-1
XINFO GROUPS s
XINFO CONSUMERS s g
XINFO CONSUMERS s nog
XINFO CONSUMERS nokey g
XPENDING s g
XPENDING s g - + 10
XPENDING s g - + 10 alice
XPENDING s g - + 10 nobody
XPENDING s g (1-1 + 10
XPENDING s g - (4-1 1
XPENDING s g IDLE 0 - + 10
XPENDING s g IDLE 1000000 - + 10
XPENDING s g - + x
XPENDING s g IDLE 5 - +
XPENDING s g - + 10 c extra
XPENDING s g bad + 10
XPENDING s g (18446744073709551615-18446744073709551615 + 10
XPENDING nokey g
XPENDING s nog
XPENDING s g - +
XDEL s 2-1
XREADGROUP GROUP g alice STREAMS s 0
XCLAIM s g erin 0 2-1
XPENDING s g - + 10
XCLAIM s g erin 0 1-1 3-1 JUSTID
XCLAIM s g erin 0 1-1 TIME 1000 RETRYCOUNT 7
XCLAIM s g frank 0 4-1 FORCE
XCLAIM s g frank 0 4-1 9-9 FORCE JUSTID LASTID 5-0
XCLAIM s g frank 100000 1-1
XCLAIM s g frank 0 1-1 IDLE 100000000
XCLAIM s g frank 0 1-1 IDLE x
XCLAIM s g frank x 1-1
XCLAIM s g frank 0 1-1 FOO
XCLAIM s g frank 0 bad
XCLAIM s g frank 0 1-1 TIME x
XCLAIM s g frank 0 1-1 RETRYCOUNT x
XCLAIM s g frank 0 1-1 LASTID bad
XCLAIM nokey g frank 0 1-1
XCLAIM s nog frank 0 1-1
XCLAIM str g frank 0 1-1
XPENDING s g - + 10
XINFO GROUPS s
XADD s 5-1 e 6
XADD s 6-1 f 7
XREADGROUP GROUP g carol STREAMS s >
XDEL s 5-1
XAUTOCLAIM s g gina 0 0 COUNT 1
XAUTOCLAIM s g gina 0 0 COUNT 2 JUSTID
XAUTOCLAIM s g gina 0 0
XAUTOCLAIM s g gina 0 (4-1
XAUTOCLAIM s g gina 100000000 0
XAUTOCLAIM s g gina x 0
XAUTOCLAIM s g gina 0 bad
XAUTOCLAIM s g gina 0 0 COUNT 0
XAUTOCLAIM s g gina 0 0 COUNT 9999999999999999999
XAUTOCLAIM s g gina 0 0 FOO
XAUTOCLAIM s g gina 0 (18446744073709551615-18446744073709551615
XAUTOCLAIM nokey g gina 0 0
XAUTOCLAIM s nog gina 0 0
XPENDING s g
XACK s g 1-1 4-1 9-9
XACK s g 1-1
XACK s g bad
XACK nokey g bad
XACK s nog 1-1
XACK str g 1-1
XPENDING s g
XGROUP CREATECONSUMER s g zed
XGROUP CREATECONSUMER s g zed
XGROUP CREATECONSUMER s nog zed
XGROUP CREATECONSUMER nokey g zed
XGROUP DELCONSUMER s g gina
XGROUP DELCONSUMER s g nobody
XGROUP DELCONSUMER s nog gina
XINFO CONSUMERS s g
XGROUP SETID s g 0 ENTRIESREAD
XGROUP SETID s g 0 FOO 1
XGROUP SETID s g 0 ENTRIESREAD -5
XGROUP SETID s g 0 ENTRIESREAD x
XGROUP SETID s g bad
XGROUP SETID s nog 0
XGROUP SETID nokey g 0
XGROUP SETID s g3 +
XGROUP SETID s g3 $ ENTRIESREAD 3
XGROUP SETID s g4 1-1 ENTRIESREAD -1
XINFO GROUPS s
XINFO STREAM s
XINFO STREAM s FULL
XINFO STREAM s FULL COUNT 1
XGROUP DESTROY s g4
XGROUP DESTROY s g4
XGROUP DESTROY nokey g
XGROUP DESTROY str g
XINFO GROUPS s
MULTI
XREADGROUP GROUP g hal BLOCK 0 STREAMS s >
XGROUP CREATE s g9 0
XREADGROUP GROUP g9 hal COUNT 1 STREAMS s >
EXEC
XTRIM s MAXLEN 1
XPENDING s g
XREADGROUP GROUP g9 hal STREAMS s 0
XINFO GROUPS s
XINFO STREAM s FULL
XADD {t}s2 1-1 a 1
XGROUP CREATE {t}s2 g 0
XREADGROUP GROUP g9 hal STREAMS s {t}s2 0 0
XREADGROUP GROUP g hal STREAMS {t}s2 >
XREADGROUP GROUP g hal STREAMS s {t}s2 > >
COPY s s3
XINFO STREAM s3 FULL
DEL s
XINFO GROUPS s
XREADGROUP GROUP g alice STREAMS s >
XGROUP CREATE s g 0 MKSTREAM
XINFO STREAM s FULL
XGROUP CREATE e g $ MKSTREAM
XSETID e 5-5 ENTRIESADDED 3
XINFO GROUPS e
XGROUP CREATE e g1 0
XGROUP CREATE e g2 5-5
XINFO GROUPS e
TYPE e
`
	var cmds [][]string
	for _, line := range strings.Split(script, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			cmds = append(cmds, f)
		}
	}
	for _, proto := range []int{2, 3} {
		a, b := dialDiff(t, s.addr, proto), dialDiff(t, ref, proto)
		a.do(t, []string{"FLUSHALL"})
		b.do(t, []string{"FLUSHALL"})
		for _, args := range cmds {
			got, want := maskTimes(a.do(t, args)[0]), maskTimes(b.do(t, args)[0])
			if !bytes.Equal(got, want) {
				t.Fatalf("RESP%d %s: radish replied %q, redis %q", proto, strings.Join(args, " "), got, want)
			}
		}
	}
}
