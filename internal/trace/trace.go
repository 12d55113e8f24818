package trace

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"github.com/llmgate/llmgate/internal/linefile"
)

// Formats.
const (
	// FormatMooncake is the Mooncake FAST'25 release: one JSON object a
	// line with timestamp (ms), input_length, output_length and hash_ids
	// (one id per 512-token block of the prompt).
	FormatMooncake = "mooncake"
	// FormatAzure is the Azure LLM inference traces' CSV: a header naming
	// TIMESTAMP, ContextTokens and GeneratedTokens, then one row a request.
	FormatAzure = "azure"
	// FormatJSONL is llmgate's own: one JSON object a line with timestamp
	// (ms), input_tokens, output_tokens, and optionally prompt or messages
	// (sent as written) or hash_ids (block hashes, as Mooncake's).
	FormatJSONL = "jsonl"
)

// Formats are the formats Read knows, in the order documentation lists them.
var Formats = []string{FormatMooncake, FormatAzure, FormatJSONL}

// DefaultBlockSize is the tokens a hash id stands for unless told
// otherwise: Mooncake's 512.
const DefaultBlockSize = 512

// Limits on what a trace may hold; a file past one is refused with the line
// that crossed it.
const (
	// MaxFileBytes bounds a trace file's size.
	MaxFileBytes = 256 << 20
	// MaxLineBytes bounds one line (a row with its prompt or hash ids).
	MaxLineBytes = 4 << 20
	// MaxRows bounds the rows of a trace.
	MaxRows = 5_000_000
	// MaxTokens bounds a row's input and output lengths: longer than any
	// model's context.
	MaxTokens = 1 << 22
	// MaxHashIDs bounds the hash ids of the whole trace.
	MaxHashIDs = 32 << 20
	// maxTimestamp bounds a timestamp or a span, in ms: about 30 years.
	maxTimestampMS = 1e12
)

// Row is one request of a trace.
type Row struct {
	// Line is the row's line in the file, from 1: what the request records
	// and error messages name.
	Line int
	// At is when the request arrived, after the trace's earliest row.
	At time.Duration
	// Input and Output are the prompt's and the answer's lengths in tokens.
	// A prompt given as text without input_tokens has Input estimated at a
	// token per 4 bytes (Estimated).
	Input, Output int
	// Estimated says Input was estimated from the prompt's text.
	Estimated bool
	// Hashes are the ids of the prompt's blocks, in order: block i holds
	// tokens [i·block size, (i+1)·block size). Rows that share an id share
	// that block's content. Nil for none.
	Hashes []int64
	// Prompt or Messages, when set (jsonl only), are sent as written.
	Prompt   string
	Messages []Message
}

// HasText reports whether the row carries its own prompt.
func (r *Row) HasText() bool { return r.Prompt != "" || len(r.Messages) > 0 }

// Message is one chat message of a row.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Trace is a parsed trace file.
type Trace struct {
	// Rows are in arrival order: sorted by At, rows of equal At in file
	// order.
	Rows []Row
	// Reordered counts the rows that came in the file after a later one
	// (a timestamp below one before it); Rows holds them in time order.
	Reordered int
	// Digest is "sha256:" and the hex SHA-256 of the file's bytes: two
	// runs that replayed the same digest replayed the same trace.
	Digest string
}

// errAt is a problem on one line of a trace.
var errAt = linefile.At

// Read parses a trace in format from r. Its errors name the line
// ("line 12: ..."); ReadFile's name the file too.
func Read(r io.Reader, format string) (*Trace, error) {
	return read(r, format, MaxFileBytes)
}

// read is Read with a limit on the bytes read, which tests lower.
func read(r io.Reader, format string, maxBytes int) (*Trace, error) {
	var p parser
	switch format {
	case FormatMooncake:
		p = parseMooncake
	case FormatJSONL:
		p = parseJSONL
	case FormatAzure:
		p = (&azureParser{}).parse
	default:
		return nil, fmt.Errorf("unknown trace format %q (want mooncake, azure or jsonl)", format)
	}
	t := &Trace{}
	sum := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(io.LimitReader(r, int64(maxBytes)+1), sum))
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	line, hashes, read := 0, 0, 0
	var ats []float64 // each row's timestamp in ms; At is made relative at the end
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if read += len(b) + 1; read > maxBytes+1 {
			break // the last line was cut by the limit: refused below
		}
		if line == 1 {
			b = trimBOM(b)
		}
		if blank(b) {
			continue
		}
		row, ms, ok, err := p(line, b)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue // a header
		}
		if len(t.Rows) >= MaxRows {
			return nil, errAt(line, "the trace has more than %d rows; cut it to the part the run replays", MaxRows)
		}
		if hashes += len(row.Hashes); hashes > MaxHashIDs {
			return nil, errAt(line, "the trace has more than %d hash ids in all; cut it to the part the run replays", MaxHashIDs)
		}
		row.Line = line
		t.Rows = append(t.Rows, row)
		ats = append(ats, ms)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errAt(line+1, "longer than %d MiB", MaxLineBytes>>20)
		}
		return nil, err
	}
	if read > maxBytes {
		return nil, fmt.Errorf("the trace is larger than %s; cut it to the part the run replays", size(maxBytes))
	}
	if len(t.Rows) == 0 {
		return nil, errors.New("the trace has no rows")
	}
	t.Digest = "sha256:" + hex.EncodeToString(sum.Sum(nil))
	return t.order(ats)
}

// order sorts the rows by arrival (stably: equal times keep file order),
// counts those that came out of order, and makes At relative to the
// earliest.
func (t *Trace) order(ats []float64) (*Trace, error) {
	idx := make([]int, len(t.Rows))
	latest := ats[0]
	for i := range idx {
		idx[i] = i
		if ats[i] < latest {
			t.Reordered++
		}
		latest = max(latest, ats[i])
	}
	sort.SliceStable(idx, func(a, b int) bool { return ats[idx[a]] < ats[idx[b]] })
	first := ats[idx[0]]
	rows := make([]Row, len(t.Rows))
	for i, j := range idx {
		span := ats[j] - first
		if span > maxTimestampMS {
			return nil, errAt(t.Rows[j].Line, "the row arrives %.0f days after the trace's first; a trace spans at most 30 years", span/86400e3)
		}
		rows[i] = t.Rows[j]
		rows[i].At = time.Duration(span * float64(time.Millisecond))
	}
	t.Rows = rows
	return t, nil
}

// size is a byte count in MiB, or in bytes below one.
func size(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// parser parses one non-blank line: the row and its timestamp in ms, or
// ok false for a line that holds no row (a header).
type parser func(line int, b []byte) (row Row, ms float64, ok bool, err error)

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}

func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// ReadFile reads the trace at path, which must be a regular file of at
// most MaxFileBytes; errors name the file and the line ("path:12: ...").
func ReadFile(path, format string) (*Trace, error) {
	f, err := linefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpen(f, path, format)
}

// ReadOpen is ReadFile on a file already open, called name in errors.
func ReadOpen(f *os.File, name, format string) (*Trace, error) {
	if err := linefile.Check(f, name, MaxFileBytes, "a trace", "; cut it to the part the run replays"); err != nil {
		return nil, err
	}
	t, err := Read(f, format)
	if err != nil {
		return nil, linefile.Named(name, err)
	}
	return t, nil
}

// checkLengths checks a row's lengths against the limits.
func checkLengths(line int, in, out int64, inName, outName string) error {
	switch {
	case in < 1:
		return errAt(line, "%s = %d: a prompt has at least 1 token", inName, in)
	case in > MaxTokens:
		return errAt(line, "%s = %d is longer than any model's context (at most %d)", inName, in, MaxTokens)
	case out < 1:
		return errAt(line, "%s = %d: an answer has at least 1 token (a server refuses max_tokens = 0); leave such rows out of the trace", outName, out)
	case out > MaxTokens:
		return errAt(line, "%s = %d is longer than any model's context (at most %d)", outName, out, MaxTokens)
	}
	return nil
}

// checkMS checks a timestamp in ms.
func checkMS(line int, ms float64, name string) error {
	if ms != ms || ms < -maxTimestampMS || ms > maxTimestampMS {
		return errAt(line, "%s = %g is not a time in milliseconds (at most %.0g)", name, ms, maxTimestampMS)
	}
	return nil
}
