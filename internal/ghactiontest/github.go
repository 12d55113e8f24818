// Package ghactiontest provides what tests of GitHub integrations need: a
// fake GitHub REST API for issue comments served over real HTTP, and a fake
// Actions runner environment (output, step-summary and event files).
package ghactiontest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The repository the fake serves.
const (
	Owner = "octo"
	Repo  = "gate"
	// Token is the only token the fake accepts.
	Token = "test-token"
	// MaxBody is GitHub's limit on a comment body, in characters.
	MaxBody = 65536
)

// BotLogin is the author of comments posted with a workflow's
// GITHUB_TOKEN, an installation token for which GET /user answers 403.
const BotLogin = "github-actions[bot]"

// User is a comment's author.
type User struct {
	Login string `json:"login"`
	Type  string `json:"type"`
}

// Comment is a stored comment.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    User   `json:"user"`
}

// FieldError is an entry of a 422 answer's errors list.
type FieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// GitHub is an in-memory GitHub REST API for the issue-comment endpoints of
// Owner/Repo and its pull requests' heads (SetPull): list (paginated with per_page, page and Link headers that use
// the repository-id form GitHub uses), create and update. It checks the
// headers GitHub requires, answers 401 to a wrong token, 403 to writes when
// read-only (as a fork PR's token is answered), and 422 to a body over the
// size limit, with GitHub's error bodies.
type GitHub struct {
	srv    *httptest.Server
	prefix string

	mu       sync.Mutex
	readOnly bool
	login    string // the token's user; "" is an installation token (BotLogin)
	maxBody  int
	nextID   int64
	comments map[int][]Comment
	pulls    map[int]Pull
	requests []string
}

// Pull is what the fake answers for GET /repos/Owner/Repo/pulls/N: the
// pull request's head commit and the repository it comes from.
type Pull struct {
	Number int `json:"number"`
	Head   struct {
		SHA  string `json:"sha"`
		Repo *struct {
			ID       int64  `json:"id"`
			FullName string `json:"full_name"`
		} `json:"repo"`
	} `json:"head"`
}

// SetPull makes pull request number exist with head commit sha from the
// repository headRepo ("owner/name", id repoID); headRepo "" is a fork
// that was deleted, which GitHub answers with "repo": null.
func (g *GitHub) SetPull(number int, sha, headRepo string, repoID int64) {
	p := Pull{Number: number}
	p.Head.SHA = sha
	if headRepo != "" {
		p.Head.Repo = &struct {
			ID       int64  `json:"id"`
			FullName string `json:"full_name"`
		}{repoID, headRepo}
	}
	g.mu.Lock()
	g.pulls[number] = p
	g.mu.Unlock()
}

// NewGitHub starts a fake API whose root is served under prefix ("" like
// api.github.com, "/api/v3" like GitHub Enterprise); it stops with the test.
func NewGitHub(tb testing.TB, prefix string) *GitHub {
	g := &GitHub{prefix: prefix, maxBody: MaxBody, nextID: 1000, comments: map[int][]Comment{}, pulls: map[int]Pull{}}
	g.srv = httptest.NewServer(http.HandlerFunc(g.serve))
	tb.Cleanup(g.srv.Close)
	return g
}

// APIURL is the API root, for GITHUB_API_URL.
func (g *GitHub) APIURL() string { return g.srv.URL + g.prefix }

// SetReadOnly makes writes answer 403 "Resource not accessible by integration".
func (g *GitHub) SetReadOnly(v bool) { g.mu.Lock(); g.readOnly = v; g.mu.Unlock() }

// SetUser makes Token a user's token: GET /user answers login, and the
// comments the token writes are login's. By default it is an installation
// token, as a workflow's GITHUB_TOKEN is: GET /user answers 403 and the
// comments are BotLogin's.
func (g *GitHub) SetUser(login string) { g.mu.Lock(); g.login = login; g.mu.Unlock() }

// poster is who the token's writes are by; g.mu is held.
func (g *GitHub) poster() User {
	if g.login == "" {
		return User{Login: BotLogin, Type: "Bot"}
	}
	return User{Login: g.login, Type: "User"}
}

// SetMaxBody changes the body limit (characters) above which writes answer 422.
func (g *GitHub) SetMaxBody(n int) { g.mu.Lock(); g.maxBody = n; g.mu.Unlock() }

// Seed adds n comments to issue by the token's own identity, with bodies
// from body, and returns their IDs.
func (g *GitHub) Seed(issue, n int, body func(i int) string) []int64 {
	g.mu.Lock()
	author := g.poster()
	g.mu.Unlock()
	return g.SeedBy(issue, author.Login, n, body)
}

// SeedBy adds n comments to issue by login, with bodies from body, and
// returns their IDs.
func (g *GitHub) SeedBy(issue int, login string, n int, body func(i int) string) []int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	var ids []int64
	for i := range n {
		g.nextID++
		g.comments[issue] = append(g.comments[issue], Comment{ID: g.nextID, Body: body(i), User: User{Login: login, Type: "User"}})
		ids = append(ids, g.nextID)
	}
	return ids
}

// Comments returns issue's comments, oldest first.
func (g *GitHub) Comments(issue int) []Comment {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]Comment(nil), g.comments[issue]...)
}

// Requests returns every request so far as "METHOD /path?query".
func (g *GitHub) Requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.requests...)
}

func fail(w http.ResponseWriter, code int, msg string, errs ...FieldError) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{"message": msg, "errors": errs, "documentation_url": "https://docs.github.com/rest/issues/comments"})
}

func (g *GitHub) serve(w http.ResponseWriter, r *http.Request) {
	g.mu.Lock()
	g.requests = append(g.requests, r.Method+" "+r.URL.RequestURI())
	g.mu.Unlock()
	if got := r.Header.Get("Accept"); got != "application/vnd.github+json" {
		fail(w, http.StatusBadRequest, "bad Accept "+got)
		return
	}
	if got := r.Header.Get("X-GitHub-Api-Version"); got != "2022-11-28" {
		fail(w, http.StatusBadRequest, "bad X-GitHub-Api-Version "+got)
		return
	}
	if r.Header.Get("User-Agent") == "" {
		fail(w, http.StatusForbidden, "Request forbidden by administrative rules. Please make sure your request has a User-Agent header")
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+Token {
		fail(w, http.StatusUnauthorized, "Bad credentials")
		return
	}
	if r.URL.Path == g.prefix+"/user" && r.Method == http.MethodGet {
		g.mu.Lock()
		login := g.login
		g.mu.Unlock()
		if login == "" {
			fail(w, http.StatusForbidden, "Resource not accessible by integration")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(User{Login: login, Type: "User"})
		return
	}
	if n, ok := strings.CutPrefix(r.URL.Path, g.prefix+"/repos/"+Owner+"/"+Repo+"/pulls/"); ok && r.Method == http.MethodGet {
		g.pull(w, n)
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, g.prefix+"/repos/"+Owner+"/"+Repo+"/issues/")
	if !ok { // GitHub's Link headers use the repository's id
		path, ok = strings.CutPrefix(r.URL.Path, g.prefix+"/repositories/1/issues/")
	}
	if !ok {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	parts := strings.Split(path, "/")
	switch {
	case len(parts) == 2 && parts[1] == "comments" && r.Method == http.MethodGet:
		g.list(w, r, parts[0])
	case len(parts) == 2 && parts[1] == "comments" && r.Method == http.MethodPost:
		g.write(w, r, parts[0], 0)
	case len(parts) == 2 && parts[0] == "comments" && r.Method == http.MethodPatch:
		id, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			fail(w, http.StatusNotFound, "Not Found")
			return
		}
		g.write(w, r, "", id)
	default:
		fail(w, http.StatusNotFound, "Not Found")
	}
}

func (g *GitHub) pull(w http.ResponseWriter, number string) {
	n, err := strconv.Atoi(number)
	g.mu.Lock()
	p, ok := g.pulls[n]
	g.mu.Unlock()
	if err != nil || !ok {
		fail(w, http.StatusNotFound, "Not Found")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(p)
}

func (g *GitHub) list(w http.ResponseWriter, r *http.Request, issueStr string) {
	issue, _ := strconv.Atoi(issueStr)
	per, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	if per <= 0 {
		per = 30
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	if page <= 0 {
		page = 1
	}
	all := g.Comments(issue)
	lo, hi := min((page-1)*per, len(all)), min(page*per, len(all))
	if hi < len(all) {
		link := func(p int) string {
			return fmt.Sprintf("%s%s/repositories/1/issues/%d/comments?per_page=%d&page=%d", g.srv.URL, g.prefix, issue, per, p)
		}
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s>; rel="last"`, link(page+1), link((len(all)+per-1)/per)))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(all[lo:hi])
}

func (g *GitHub) write(w http.ResponseWriter, r *http.Request, issueStr string, id int64) {
	g.mu.Lock()
	readOnly, maxBody := g.readOnly, g.maxBody
	g.mu.Unlock()
	if readOnly {
		fail(w, http.StatusForbidden, "Resource not accessible by integration")
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Body == "" {
		fail(w, http.StatusUnprocessableEntity, "Validation Failed", FieldError{Resource: "IssueComment", Field: "body", Code: "missing_field"})
		return
	}
	if n := len([]rune(in.Body)); n > maxBody {
		fail(w, http.StatusUnprocessableEntity, "Validation Failed", FieldError{Resource: "IssueComment", Field: "body", Code: "custom",
			Message: fmt.Sprintf("body is too long (maximum is %d characters)", maxBody)})
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if id == 0 {
		issue, _ := strconv.Atoi(issueStr)
		g.nextID++
		cm := Comment{ID: g.nextID, Body: in.Body, HTMLURL: fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", Owner, Repo, issue, g.nextID), User: g.poster()}
		g.comments[issue] = append(g.comments[issue], cm)
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(cm)
		return
	}
	for issue, cms := range g.comments {
		for i := range cms {
			if cms[i].ID == id {
				cms[i].Body = in.Body
				cms[i].HTMLURL = fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", Owner, Repo, issue, id)
				_ = json.NewEncoder(w).Encode(cms[i])
				return
			}
		}
	}
	fail(w, http.StatusNotFound, "Not Found")
}
