package command

// Arguments MONITOR and SLOWLOG never show: passwords, as Redis's
// redactClientCommandArgument hides them, each printed as "(redacted)".
// A row names them with Spec.Redact; Redacted applies it.

// redactedArg is what a hidden argument shows.
var redactedArg = []byte("(redacted)")

// Redacted returns args with the arguments spec hides replaced: a copy
// made in *scratch, which keeps it (args itself when the row hides
// nothing).
func Redacted(spec *Spec, args [][]byte, scratch *[][]byte) [][]byte {
	if spec == nil || spec.Redact == nil {
		return args
	}
	var buf [8]int
	idx := spec.Redact(args, buf[:0])
	if len(idx) == 0 {
		return args
	}
	dst := append((*scratch)[:0], args...)
	for _, i := range idx {
		if i < len(dst) {
			dst[i] = redactedArg
		}
	}
	*scratch = dst
	return dst
}

// redactFrom hides every argument from the first on (AUTH's; ACL
// SETUSER's user and rules).
func redactFrom(first int) func(args [][]byte, dst []int) []int {
	return func(args [][]byte, dst []int) []int {
		for i := first; i < len(args); i++ {
			dst = append(dst, i)
		}
		return dst
	}
}

// redactHello hides HELLO's AUTH user and password.
func redactHello(args [][]byte, dst []int) []int {
	for j := 2; j < len(args); j++ {
		switch more := len(args) - 1 - j; {
		case kvIs(args[j], "auth") && more >= 2:
			dst = append(dst, j+1, j+2)
			j += 2
		case kvIs(args[j], "setname") && more >= 1:
			j++
		default:
			return dst
		}
	}
	return dst
}

// redactMigrate hides MIGRATE's AUTH password and AUTH2 user and password.
func redactMigrate(args [][]byte, dst []int) []int {
	for j := 6; j < len(args); j++ {
		switch more := len(args) - 1 - j; {
		case kvIs(args[j], "auth") && more >= 1:
			dst = append(dst, j+1)
			j++
		case kvIs(args[j], "auth2") && more >= 2:
			dst = append(dst, j+1, j+2)
			j += 2
		case kvIs(args[j], "keys"):
			return dst
		}
	}
	return dst
}

// sensitiveConfigs are Redis's SENSITIVE_CONFIG parameters: CONFIG SET
// hides their values.
var sensitiveConfigs = []string{"masterauth", "requirepass", "tls-key-file-pass", "tls-client-key-file-pass"}

// redactConfigSet hides the values CONFIG SET gives sensitive parameters.
func redactConfigSet(args [][]byte, dst []int) []int {
	for j := 2; j+1 < len(args); j += 2 {
		for _, name := range sensitiveConfigs {
			if kvIs(args[j], name) {
				dst = append(dst, j+1)
			}
		}
	}
	return dst
}
