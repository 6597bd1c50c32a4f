// Package resp is Radish's codec for the Redis protocol: a request parser
// (Reader), a reply encoder (Writer) and a reply decoder (ReadReply,
// AppendValue) for RESP2 and RESP3. It is pure: no I/O, no goroutines, no
// clock, no engine or command knowledge.
//
// Nouns:
//   - Command: one request, a list of arguments. It arrives either as a
//     multibulk ("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n") or as an inline line
//     ("GET k\r\n", what telnet sends), split by Redis's sdssplitargs
//     rules (double quotes with \n \r \t \b \a \xHH escapes, single quotes
//     with \' only).
//   - Pipeline: many commands back to back in one buffer. Reader.Next takes
//     one from the front and says how many bytes it used; the caller loops.
//   - Incomplete: the buffer ends inside a command. Next returns n == 0 and
//     no error; the caller reads more and calls again with the same bytes
//     at the front. Need tells how many more bytes are known to be needed.
//   - Protocol error: bytes that can never become a valid command. The
//     error's text is Redis's reply text; the caller writes it and closes
//     the connection (Redis does the same).
//   - Reply: what Writer appends (one method per RESP type; RESP3-only
//     types fall back to RESP2 forms as Redis writes them) and what
//     ReadReply decodes into a Value.
//
// What it never does:
//   - copy or allocate for a complete command once the Reader is warm:
//     arguments are slices of the caller's buffer (inline tokens that had
//     quotes are unescaped into a buffer the Reader reuses);
//   - allocate in proportion to a length the peer merely declares: a bulk
//     of 500 MB is "incomplete" until 500 MB are there, and the caller's
//     query buffer limit decides whether to wait that long;
//   - keep references to the caller's buffer between calls, or allocate in
//     Writer except to grow the output slice.
//
// What must stay true:
//   - Every proper prefix of a valid command (of a valid reply) is reported
//     incomplete; never an error, never a different command.
//   - 0 <= n <= len(buf) for every result, and n > 0 whenever a command is
//     returned; bytes are never consumed together with an error.
//   - The same bytes give the same error text as Redis 7's
//     processMultibulkBuffer/processInlineBuffer, with these deliberate
//     differences: *N above MaxMultibulkLen (1024*1024) is "invalid
//     multibulk length" (Redis 7 allows up to INT_MAX); bulk data must be
//     followed by CRLF (ErrBulkCRLF; Redis skips two bytes unchecked) and a
//     count line's CR must be followed by LF; an inline line is found by
//     its LF even when it contains a NUL byte (Redis's strchr stops there),
//     but as in Redis the tokens end at the NUL.
//   - Doubles are formatted as Redis 7.0 does ("%.17g", num.AppendDouble);
//     integers in requests are read by num.ParseInt (Redis's string2ll).
//
// The parser is stateless across calls, so a command that arrives in many
// reads is re-parsed from its start each time; the cost is one scan of its
// argument headers per call (bulk data is skipped, not scanned).
package resp
