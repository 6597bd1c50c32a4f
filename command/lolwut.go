package command

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/radish-kv/radish/errtext"
	"github.com/radish-kv/radish/num"
)

// Version is the Redis version Radish answers as (INFO's redis_version,
// HELLO's version, LOLWUT's): the one whose replies it gives.
const Version = "7.0.15"

// LOLWUT [VERSION v] [...], as Redis 7.0: the art of the version asked
// (5: Georg Nees's Schotter in Braille dots; 6: a city skyline in the
// terminal's four grays), or for any other version, Redis 7's own, the
// version line alone. The art's random parts are random here too; the
// rest is drawn as Redis draws it, dot for dot.

func init() {
	register(&Spec{Name: "lolwut", Arity: -1, Flags: ReadOnly | Fast, Handler: cmdLolwut,
		Summary: "Display some computer art and the Redis version", Since: "5.0.0", Group: "server",
		Args: []Arg{{Name: "version", Type: "integer", Token: "VERSION", Flags: ArgOptional}}})
}

func cmdLolwut(c *Ctx, args [][]byte) {
	v := Version
	if len(args) >= 3 && kvIs(args[1], "version") {
		n, ok := num.ParseInt(args[2])
		if !ok {
			c.W.Error(errtext.NotInt)
			return
		}
		v = strconv.FormatUint(uint64(uint32(n)), 10) + ".0.0" // C's %u of the long
		args = args[2:]
	}
	switch {
	case v[0] == '5' && v[1] == '.' && v[2] != '9', v[0] == '4' && v[1] == '.' && v[2] == '9':
		lolwut5(c, args)
	case v[0] == '6' && v[1] == '.' && v[2] != '9', v[0] == '5' && v[1] == '.' && v[2] == '9':
		lolwut6(c, args)
	default:
		c.W.Verbatim("txt", []byte("Redis ver. "+Version+"\n"))
	}
}

// lolwutArgs parses the version's numeric arguments after args[0] into
// vals (their defaults), each then held within [1, limit]; false once it
// answered an error.
func lolwutArgs(c *Ctx, args [][]byte, limit int64, vals ...*int64) bool {
	for i, p := range vals {
		if len(args) > i+1 {
			n, ok := num.ParseInt(args[i+1])
			if !ok {
				c.W.Error(errtext.NotInt)
				return false
			}
			*p = n
		}
	}
	for _, p := range vals {
		*p = min(max(*p, 1), limit)
	}
	return true
}

// lwCanvas is a grid of pixels, each a color (0-3).
type lwCanvas struct {
	w, h int
	px   []byte
}

func newCanvas(w, h int, bg byte) *lwCanvas {
	c := &lwCanvas{w: w, h: h, px: make([]byte, w*h)}
	for i := range c.px {
		c.px[i] = bg
	}
	return c
}

// set and get ignore a pixel off the canvas (get reads 0).
func (c *lwCanvas) set(x, y int, color byte) {
	if x >= 0 && x < c.w && y >= 0 && y < c.h {
		c.px[x+y*c.w] = color
	}
}

func (c *lwCanvas) get(x, y int) byte {
	if x >= 0 && x < c.w && y >= 0 && y < c.h {
		return c.px[x+y*c.w]
	}
	return 0
}

// line draws from (x1,y1) to (x2,y2), Bresenham's way.
func (c *lwCanvas) line(x1, y1, x2, y2 int, color byte) {
	dx, dy := abs(x2-x1), abs(y2-y1)
	sx, sy := 1, 1
	if x1 >= x2 {
		sx = -1
	}
	if y1 >= y2 {
		sy = -1
	}
	err := dx - dy
	for {
		c.set(x1, y1, color)
		if x1 == x2 && y1 == y2 {
			return
		}
		e2 := err * 2
		if e2 > -dy {
			err -= dy
			x1 += sx
		}
		if e2 < dx {
			err += dx
			y1 += sy
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// square draws a square of side size centered at (x,y), turned by angle:
// its corners on the circle through them, from pi/4 + angle on, in the
// single and double precision Redis's C computes them in (so that the
// same square has the same dots).
func (c *lwCanvas) square(x, y int, size, angle float32, color byte) {
	size = float32(float64(size) / 1.4142135623)
	size = float32(math.Round(float64(size)))
	var px, py [4]int
	k := float32(math.Pi/4 + float64(angle))
	for j := range 4 {
		px[j] = int(math.Round(math.Sin(float64(k))*float64(size) + float64(x)))
		py[j] = int(math.Round(math.Cos(float64(k))*float64(size) + float64(y)))
		k = float32(float64(k) + math.Pi/2)
	}
	for j := range 4 {
		c.line(px[j], py[j], px[(j+1)%4], py[(j+1)%4], color)
	}
}

// lolwut5 is LOLWUT 5 [columns [squares-per-row [squares-per-col]]]:
// Schotter, rows of squares that turn and move more the lower they are,
// in Braille characters (2x4 dots each).
func lolwut5(c *Ctx, args [][]byte) {
	cols, perRow, perCol := int64(66), int64(8), int64(12)
	if !lolwutArgs(c, args, 1000, &cols) || !lolwutArgs(c, args[1:], 200, &perRow, &perCol) {
		return
	}
	width := int(cols) * 2
	pad := 0
	if width > 4 {
		pad = 2
	}
	side := float32(width-pad*2) / float32(perRow)
	height := int(side*float32(perCol) + float32(pad*2))
	cv := newCanvas(width, height, 0)
	rnd := func() float32 { return rand.Float32() / float32(perCol) }
	for y := range int(perCol) {
		for x := range int(perRow) {
			sx := int(float32(x)*side + side/2 + float32(pad))
			sy := int(float32(y)*side + side/2 + float32(pad))
			var angle float32
			if y > 1 {
				r1, r2, r3 := rnd()*float32(y), rnd()*float32(y), rnd()*float32(y)
				for _, r := range []*float32{&r1, &r2, &r3} {
					if rand.IntN(2) == 1 {
						*r = -*r
					}
				}
				angle = r1
				sx = int(float32(sx) + r2*side/3)
				sy = int(float32(sy) + r3*side/3)
			}
			cv.square(sx, sy, side, angle, 1)
		}
	}
	var out []byte
	for y := 0; y < cv.h; y += 4 {
		for x := 0; x < cv.w; x += 2 {
			b := 0
			for i, d := range [8][2]int{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}, {0, 3}, {1, 3}} {
				if cv.get(x+d[0], y+d[1]) != 0 {
					b |= 1 << i
				}
			}
			out = append(out, string(rune(0x2800+b))...)
		}
		if y != cv.h-1 {
			out = append(out, '\n')
		}
	}
	out = append(out, "\nGeorg Nees - schotter, plotter on paper, 1968. Redis ver. "+Version+"\n"...)
	c.W.Verbatim("txt", out)
}

// lolwut6 is LOLWUT 6 [columns [rows]]: a skyline, two rows of grays
// behind one of black buildings with windows, each dot a space in one of
// the terminal's four grays.
func lolwut6(c *Ctx, args [][]byte) {
	cols, rows := int64(80), int64(20)
	if !lolwutArgs(c, args, 1000, &cols, &rows) {
		return
	}
	cv := newCanvas(int(cols), int(rows), 3)
	skyline(cv)
	var out []byte
	for y := range cv.h {
		for x := range cv.w {
			out = append(out, "\x1b["...)
			out = append(out, [...]string{"0;30;40m", "0;90;100m", "0;37;47m", "0;97;107m"}[cv.get(x, y)&3]...)
			out = append(out, " \x1b[0m"...)
		}
		if y != cv.h-1 {
			out = append(out, '\n')
		}
	}
	out = append(out, "\nDedicated to the 8 bit game developers of past and present.\n"+
		"Original 8 bit image from Plaguemon by hikikomori. Redis ver. "+Version+"\n"...)
	c.W.Verbatim("txt", out)
}

// skyscraper is one building of the skyline.
type skyscraper struct {
	xoff, width, height int
	windows             bool
	color               byte
}

// draw puts s on the canvas's ground: its roof two dots narrower each
// side, its windows (two dots wide, one tall, every other one) a random
// gray other than its own.
func (s skyscraper) draw(cv *lwCanvas) {
	start := cv.h - 1
	end := start - s.height + 1
	for y := start; y >= end; y-- {
		for x := s.xoff; x < s.xoff+s.width; x++ {
			if y == end && (x <= s.xoff+1 || x >= s.xoff+s.width-2) {
				continue
			}
			color := s.color
			if s.windows && x > s.xoff+1 && x < s.xoff+s.width-2 && y > end+1 && y < start-1 {
				relx, rely := x-(s.xoff+1), y-(end+1)
				if relx/2%2 != 0 && rely%2 != 0 {
					for color == s.color {
						color = byte(1 + rand.IntN(2))
					}
					if relx%2 != 0 {
						color = cv.get(x-1, y)
					}
				}
			}
			cv.set(x, y, color)
		}
	}
}

// skyline draws the light and the darker gray buildings behind, then the
// black ones with windows in front.
func skyline(cv *lwCanvas) {
	for color := byte(2); color >= 1; color-- {
		for off := -10; off < cv.w; {
			off += rand.IntN(8)
			s := skyscraper{xoff: off, width: 10 + rand.IntN(9), color: color}
			if color == 2 {
				s.height = cv.h/2 + rand.IntN(cv.h)/2
			} else {
				s.height = cv.h/2 + rand.IntN(cv.h)/3
			}
			s.draw(cv)
			if color == 2 {
				off += s.width / 2
			} else {
				off += s.width + 1
			}
		}
	}
	for off := -10; off < cv.w; {
		off += rand.IntN(8)
		s := skyscraper{xoff: off, width: 5 + rand.IntN(14), windows: true}
		if s.width%4 != 0 {
			s.width += s.width % 3
		}
		s.height = cv.h/3 + rand.IntN(cv.h)/2
		s.draw(cv)
		off += s.width + 5
	}
}
