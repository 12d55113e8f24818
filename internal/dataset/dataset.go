// Package dataset reads files of a suite's own prompts: llmgate's JSONL
// (one object a line with a prompt or messages and an optional answer
// length) and CSV (a prompt column and an optional output_tokens column).
// It imports the standard library only (and internal/linefile, which does
// too), so that the suite (to check a file at validate) and the load engine
// (to send it) read it alike. ShareGPT files are the load engine's own.
package dataset

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmgate/llmgate/internal/linefile"
)

// Formats.
const (
	FormatShareGPT = "sharegpt"
	FormatJSONL    = "jsonl"
	FormatCSV      = "csv"
)

// Formats are the dataset formats a suite may name, ShareGPT first (the
// default).
var Formats = []string{FormatShareGPT, FormatJSONL, FormatCSV}

// Limits on a prompt file; past one it is refused with the line that
// crossed it.
const (
	MaxFileBytes = 256 << 20
	MaxLineBytes = 4 << 20 // a JSONL line
	MaxEntries   = 5_000_000
	MaxTokens    = 1 << 22 // an answer's length
)

// Entry is one prompt of a file.
type Entry struct {
	// Line is where the entry starts in the file, from 1.
	Line int
	// Prompt (a completion) or Messages (a chat) are sent as written.
	Prompt   string
	Messages []Message
	// OutputTokens is the answer's length; 0 when the file does not say.
	OutputTokens int
}

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

var errAt = linefile.At

// Read parses a prompt file in format (jsonl or csv) from r; its errors
// name the line. They never quote the file's text: a dataset may live
// anywhere on the runner.
func Read(r io.Reader, format string) ([]Entry, error) {
	return read(r, format, MaxFileBytes)
}

func read(r io.Reader, format string, maxBytes int) ([]Entry, error) {
	lr := &limitedReader{r: r, n: int64(maxBytes) + 1}
	var entries []Entry
	var err error
	switch format {
	case FormatJSONL:
		entries, err = readJSONL(lr)
	case FormatCSV:
		entries, err = readCSV(lr)
	default:
		return nil, fmt.Errorf("unknown prompt file format %q (want jsonl or csv)", format)
	}
	if lr.n <= 0 {
		return nil, fmt.Errorf("the file is larger than %s; cut it to the prompts the run sends", size(maxBytes))
	}
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, errors.New("the file holds no prompt")
	}
	return entries, nil
}

// limitedReader is io.LimitedReader that says when it ran out.
type limitedReader struct {
	r io.Reader
	n int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

func size(n int) string {
	if n < 1<<20 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// jsonlEntry is one line of a JSONL prompt file.
type jsonlEntry struct {
	Prompt       *string   `json:"prompt"`
	Messages     []Message `json:"messages"`
	OutputTokens *int64    `json:"output_tokens"`
}

func readJSONL(r io.Reader) ([]Entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), MaxLineBytes)
	var out []Entry
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		var j jsonlEntry
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&j); err != nil {
			return nil, errAt(line, "not a prompt row (a JSON object with \"prompt\" or \"messages\", and optionally \"output_tokens\"): %s", jsonProblem(err))
		}
		if _, err := dec.Token(); !errors.Is(err, io.EOF) {
			return nil, errAt(line, "more follows the JSON object (one object a line)")
		}
		e := Entry{Line: line, Messages: j.Messages}
		switch {
		case j.Prompt != nil && j.Messages != nil:
			return nil, errAt(line, "both prompt and messages: a row is a completion (prompt) or a chat (messages), not both")
		case j.Prompt == nil && j.Messages == nil:
			return nil, errAt(line, "no prompt and no messages")
		case j.Prompt != nil && *j.Prompt == "":
			return nil, errAt(line, "prompt is empty")
		case j.Messages != nil && len(j.Messages) == 0:
			return nil, errAt(line, "messages is empty")
		}
		if j.Prompt != nil {
			e.Prompt = *j.Prompt
		}
		for i, m := range j.Messages {
			if m.Role == "" || m.Content == "" {
				return nil, errAt(line, "messages[%d] needs a role and a content", i)
			}
		}
		if j.OutputTokens != nil {
			n, err := outputTokens(line, *j.OutputTokens)
			if err != nil {
				return nil, err
			}
			e.OutputTokens = n
		}
		if len(out) >= MaxEntries {
			return nil, errAt(line, "more than %d prompts; cut the file to the prompts the run sends", MaxEntries)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errAt(line+1, "longer than %d MiB", MaxLineBytes>>20)
		}
		return nil, err
	}
	return out, nil
}

func outputTokens(line int, n int64) (int, error) {
	if n < 1 || n > MaxTokens {
		return 0, errAt(line, "output_tokens = %d: an answer is from 1 to %d tokens", n, MaxTokens)
	}
	return int(n), nil
}

// readCSV reads a CSV file whose header names a prompt column and
// optionally an output_tokens column (matched without regard to case;
// other columns are ignored). Fields may be quoted, with commas, quotes
// and line breaks inside.
func readCSV(r io.Reader) ([]Entry, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("the file holds no prompt")
		}
		return nil, csvProblem(err)
	}
	prompt, out := -1, -1
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		switch {
		case strings.EqualFold(h, "prompt"):
			prompt = i
		case strings.EqualFold(h, "output_tokens"):
			out = i
		}
	}
	if prompt < 0 {
		return nil, errAt(1, "the header names no prompt column (want a column called prompt, and optionally output_tokens)")
	}
	var entries []Entry
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return entries, nil
		}
		if err != nil {
			return nil, csvProblem(err)
		}
		line, _ := cr.FieldPos(prompt)
		e := Entry{Line: line, Prompt: rec[prompt]}
		if e.Prompt == "" {
			return nil, errAt(line, "the prompt is empty")
		}
		if out >= 0 && strings.TrimSpace(rec[out]) != "" {
			n, err := strconv.ParseInt(strings.TrimSpace(rec[out]), 10, 64)
			if err != nil {
				return nil, errAt(line, "output_tokens is not a whole number")
			}
			if e.OutputTokens, err = outputTokens(line, n); err != nil {
				return nil, err
			}
		}
		if len(entries) >= MaxEntries {
			return nil, errAt(line, "more than %d prompts; cut the file to the prompts the run sends", MaxEntries)
		}
		entries = append(entries, e)
	}
}

// csvProblem is a CSV parse error as a line error, without the file's text.
func csvProblem(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return errAt(pe.Line, "%v", pe.Err)
	}
	return err
}

// jsonProblem says what is wrong with a JSONL line, without its text.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return "a row is a JSON object, not " + te.Value
		}
		return te.Field + " cannot be " + te.Value
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "invalid JSON: " + se.Error()
	}
	return err.Error()
}

// ReadFile reads the prompt file at path, a regular file of at most
// MaxFileBytes; errors name the file and the line ("path:12: ...").
func ReadFile(path, format string) ([]Entry, error) {
	f, err := linefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := linefile.Check(f, path, MaxFileBytes, "a prompt file", ""); err != nil {
		return nil, err
	}
	entries, err := Read(f, format)
	if err != nil {
		return nil, linefile.Named(path, err)
	}
	return entries, nil
}
