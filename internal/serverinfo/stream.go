package serverinfo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Stream bounds: Discover's answers are a few dozen tokens. The first
// chunk may take long (Ollama loads the model on its first request), the
// next ones should follow each other closely: a stream silent for
// streamStall after its first chunk is given up, and so are the
// generation checks after it (errStalled).
const (
	maxStreamBytes = 4 << 20
	maxLineBytes   = 1 << 20
	firstChunkWait = 60 * time.Second
	streamStall    = 5 * time.Second
)

// errStalled is wrapped when a stream stopped sending.
var errStalled = errors.New("the stream stalled")

// streamed is what one streamed answer showed.
type streamed struct {
	status int
	body   []byte // the answer, up to a bound, when not 200
	// ttft is when the first chunk with content (text, content or
	// reasoning) arrived, role is when a chunk with a role and no content
	// did (0: none), roleInFirst whether the first content chunk said the role.
	ttft, role  time.Duration
	roleInFirst bool
	// content counts content chunks; chunkUsage those with usage,
	// zeroUsage those whose usage was all zeros; notUp is set when their
	// completion_tokens did not grow from one to the next.
	content, chunkUsage, zeroUsage int
	notUp                          bool
	lastUsage                      int
	// final is the usage-only chunk's completion_tokens (-1: none).
	final int
}

// tokens is how long the answer was: its final usage, else its last
// chunk's usage, else its content chunks.
func (s *streamed) tokens(lastUsage int) int {
	switch {
	case s.final > 0:
		return s.final
	case lastUsage > 0:
		return lastUsage
	}
	return s.content
}

// answerChunk is the part of a completion or chat chunk Discover reads.
type answerChunk struct {
	Choices []struct {
		Text  *string `json:"text"`
		Delta *struct {
			Role             string  `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// stream POSTs body to path with stream on and reads the events; the
// answer's length is the returned int.
func stream(ctx context.Context, hc *http.Client, base, path, apiKey string, body map[string]any) (*streamed, int, error) {
	if hc == nil {
		hc = http.DefaultClient
	}
	body["stream"] = true
	body["stream_options"] = map[string]bool{"include_usage": true, "continuous_usage_stats": true}
	raw, err := json.Marshal(body)
	if err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// one timer: firstChunkWait for the first line, streamStall between lines
	stall := time.AfterFunc(firstChunkWait, func() { cancel(errStalled) })
	defer stall.Stop()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(raw))
	if err != nil {
		return nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	t0 := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("POST %s: %w", path, stalled(ctx, err))
	}
	defer resp.Body.Close()
	s := &streamed{status: resp.StatusCode, final: -1}
	if resp.StatusCode != http.StatusOK {
		s.body, _ = io.ReadAll(io.LimitReader(resp.Body, 512))
		return s, 0, nil
	}
	br := bufio.NewReaderSize(io.LimitReader(resp.Body, maxStreamBytes), 4096)
	last := 0
	for {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return s, 0, fmt.Errorf("POST %s: reading the stream: %w", path, stalled(ctx, err))
		}
		stall.Reset(streamStall)
		at := time.Since(t0)
		data, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		data = bytes.TrimSpace(data)
		if string(data) == "[DONE]" {
			break
		}
		var c answerChunk
		if json.Unmarshal(data, &c) != nil {
			return s, 0, fmt.Errorf("POST %s: a chunk is not JSON", path)
		}
		if len(c.Choices) == 0 {
			if c.Usage != nil {
				s.final = c.Usage.CompletionTokens
			}
			continue
		}
		ch := c.Choices[0]
		hasContent, role := false, ""
		if ch.Text != nil && *ch.Text != "" {
			hasContent = true
		}
		if d := ch.Delta; d != nil {
			role = d.Role
			for _, p := range []*string{d.Content, d.ReasoningContent, d.Reasoning} {
				hasContent = hasContent || (p != nil && *p != "")
			}
		}
		switch {
		case hasContent:
			s.content++
			if s.content == 1 {
				s.ttft, s.roleInFirst = at, role != ""
			}
		case role != "" && s.role == 0 && s.content == 0:
			s.role = at
		}
		if u := c.Usage; u != nil && hasContent {
			s.chunkUsage++
			if u.PromptTokens == 0 && u.CompletionTokens == 0 {
				s.zeroUsage++
			}
			if s.chunkUsage > 1 && u.CompletionTokens <= last {
				s.notUp = true
			}
			last = u.CompletionTokens
		}
	}
	s.lastUsage = last
	return s, s.tokens(last), nil
}

// stalled names a stall as the cause of err when it was one.
func stalled(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errStalled) {
		return fmt.Errorf("%w (nothing for %v)", errStalled, streamStall)
	}
	return err
}

// readLine reads one line, without its end, within maxLineBytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, part...)
		if len(line) > maxLineBytes {
			return nil, fmt.Errorf("a line is longer than %d bytes", maxLineBytes)
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// usage is what the stream's usage shows.
func (s *streamed) usage() Usage {
	u := Usage{Known: true, Final: s.final > 0}
	if s.chunkUsage > 0 {
		u.Zeroed = s.zeroUsage == s.chunkUsage
		u.Continuous = !u.Zeroed && !s.notUp && s.lastUsage > 0 && s.chunkUsage == s.content
	}
	return u
}
