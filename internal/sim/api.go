package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// routes maps the simulator's API, vLLM's paths, to the handlers (handlers.go),
// which read their bodies through decode.go; errors answer in the OpenAI
// error shape written here.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/completions", s.handleCompletions)
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /tokenize", s.handleTokenize)
	mux.HandleFunc("POST /detokenize", s.handleDetokenize)
	// vLLM serves this when started with VLLM_SERVER_DEV_MODE=1; the
	// simulator always does, so that runs on one server can start cold.
	// Like vLLM it answers 200 whether or not the cache was reset: its
	// engine resets only when no request holds KV blocks, and says so in
	// its log alone.
	mux.HandleFunc("POST /reset_prefix_cache", func(w http.ResponseWriter, r *http.Request) {
		s.logf("Resetting prefix cache...")
		switch inUse := s.eng.resetPrefixCache(); {
		case inUse < 0:
			writeError(w, newAPIError(http.StatusInternalServerError, "InternalServerError", "the engine has stopped"))
			return
		case inUse > 0:
			s.logf("WARNING: Failed to reset prefix cache because some blocks (%d) are not freed yet", inUse)
		default:
			s.logf("Successfully reset prefix cache")
		}
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		if err := s.stats.write(w, s.cfg.served); err == nil {
			writeCacheConfigInfo(w, s.cfg)
		}
	})
	return s.auth(mux)
}

// auth enforces --api-key on /v1 paths, as vLLM's middleware does.
func (s *Server) auth(next http.Handler) http.Handler {
	if s.cfg.APIKey == "" {
		return next
	}
	want := "Bearer " + s.cfg.APIKey
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions && strings.HasPrefix(r.URL.Path, "/v1") && r.Header.Get("Authorization") != want {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "Unauthorized"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// apiError is vLLM's ErrorResponse (nested form, vLLM >= 0.10.1).
type apiError struct {
	Error errorInfo `json:"error"`
}

type errorInfo struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    int     `json:"code"`
}

func newAPIError(status int, typ, msg string) apiError {
	return apiError{errorInfo{Message: msg, Type: typ, Code: status}}
}

func badRequest(format string, a ...any) apiError {
	return newAPIError(http.StatusBadRequest, "BadRequestError", fmt.Sprintf(format, a...))
}

// marshal encodes v as Python's json does: no HTML escaping of <, >, &.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b := marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

func writeError(w http.ResponseWriter, e apiError) { writeJSON(w, e.Error.Code, e) }
