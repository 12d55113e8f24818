package ghaction

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// DefaultAPIURL is the REST API root used when GITHUB_API_URL is unset.
const DefaultAPIURL = "https://api.github.com"

// apiVersion is the REST API version llmgate is written against.
const apiVersion = "2022-11-28"

// Client calls the GitHub REST API endpoints llmgate needs: issue comments.
// The zero value is not usable; make one with NewClient.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
	// UserAgent is sent with every request; GitHub requires one.
	UserAgent string
}

// NewClient returns a client for the REST API at apiURL ("" means
// DefaultAPIURL; GitHub Enterprise uses https://HOST/api/v3) authenticating
// with token. A nil hc means a client with a 30-second timeout.
func NewClient(apiURL, token string, hc *http.Client) (*Client, error) {
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	u, err := url.Parse(strings.TrimRight(apiURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("github api url %q: want http(s)://host[/path]", apiURL)
	}
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	return &Client{base: u, token: token, http: hc, UserAgent: "llmgate"}, nil
}

// Repo names a repository.
type Repo struct {
	Owner, Name string
}

// String returns "owner/name".
func (r Repo) String() string { return r.Owner + "/" + r.Name }

// repoPart is what GitHub allows in an owner's or a repository's name:
// letters, digits, '.', '-' and '_', at most 100 of them. Nothing in it
// needs escaping in a URL path.
var repoPart = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// Check refuses an owner or a name that GitHub would not give a
// repository, "." and ".." among them, which would move a request to
// another path of the API.
func (r Repo) Check() error {
	for _, p := range []string{r.Owner, r.Name} {
		if !repoPart.MatchString(p) || p == "." || p == ".." {
			return fmt.Errorf("repository %q: want owner/name of letters, digits, '.', '-' and '_'", r.String())
		}
	}
	return nil
}

// ParseRepo parses "owner/name", the form of GITHUB_REPOSITORY.
func ParseRepo(s string) (Repo, error) {
	owner, name, ok := strings.Cut(s, "/")
	if !ok {
		return Repo{}, fmt.Errorf("repository %q: want owner/name", s)
	}
	r := Repo{Owner: owner, Name: name}
	if err := r.Check(); err != nil {
		return Repo{}, err
	}
	return r, nil
}

// repoEndpoint is the URL of path (which starts with "/") under the
// repository's API root, /repos/OWNER/NAME, refusing a repository that
// Check refuses: its parts then need no escaping, so none is escaped twice.
func (c *Client) repoEndpoint(repo Repo, path string, query url.Values) (string, error) {
	if err := repo.Check(); err != nil {
		return "", fmt.Errorf("github api: %w", err)
	}
	return c.endpoint("/repos/"+repo.Owner+"/"+repo.Name+path, query), nil
}

// Comment is an issue or pull-request comment.
type Comment struct {
	ID      int64  `json:"id"`
	Body    string `json:"body"`
	HTMLURL string `json:"html_url"`
	User    User   `json:"user"`
}

// User is a comment's author.
type User struct {
	Login string `json:"login"`
}

// ActionsBot is the login of comments posted with a workflow's
// GITHUB_TOKEN.
const ActionsBot = "github-actions[bot]"

// FieldError is one entry of a 422 response's errors list.
type FieldError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// APIError is a non-2xx answer from the REST API.
type APIError struct {
	Method, URL string
	StatusCode  int
	// Message, Errors and DocumentationURL are GitHub's error body.
	Message          string       `json:"message"`
	Errors           []FieldError `json:"errors"`
	DocumentationURL string       `json:"documentation_url"`
}

// Error says what was asked, what GitHub answered and, for 422, which field failed how.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "github api: %s %s: %d %s", e.Method, e.URL, e.StatusCode, http.StatusText(e.StatusCode))
	if e.Message != "" && e.Message != http.StatusText(e.StatusCode) {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	for _, fe := range e.Errors {
		msg := fe.Message
		if msg == "" {
			msg = fe.Code
		}
		fmt.Fprintf(&b, "; %s.%s: %s", fe.Resource, fe.Field, msg)
	}
	return b.String()
}

// Short is the status and GitHub's reason without the request, for messages
// read by people: "422 Validation Failed: body is too long (maximum is 65536 characters)".
func (e *APIError) Short() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d", e.StatusCode)
	if e.Message != "" {
		fmt.Fprintf(&b, " %s", e.Message)
	} else {
		fmt.Fprintf(&b, " %s", http.StatusText(e.StatusCode))
	}
	for i, fe := range e.Errors {
		msg := fe.Message
		if msg == "" {
			msg = fe.Field + " " + fe.Code
		}
		sep := "; "
		if i == 0 {
			sep = ": "
		}
		fmt.Fprintf(&b, "%s%s", sep, msg)
	}
	return b.String()
}

// shortError is err's APIError.Short when it has one, else err's text.
func shortError(err error) string {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Short()
	}
	return err.Error()
}

// IsForbidden reports whether err is GitHub refusing the token: 401 or 403,
// the answer a read-only token gets on a pull request from a fork.
func IsForbidden(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && (ae.StatusCode == http.StatusForbidden || ae.StatusCode == http.StatusUnauthorized)
}

// IsUnprocessable reports whether err is a 422 Validation Failed, such as a
// comment body over GitHub's size limit.
func IsUnprocessable(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity
}

// endpoint resolves path (with its query) under the API root.
func (c *Client) endpoint(path string, query url.Values) string {
	u := *c.base
	u.Path = c.base.Path + path
	u.RawPath = ""
	u.RawQuery = query.Encode()
	return u.String()
}

// do sends one request and decodes a 2xx JSON answer into out; it returns
// the response headers for pagination.
func (c *Client) do(ctx context.Context, method, rawURL string, in, out any) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("github api: encode %s body: %w", method, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return nil, fmt.Errorf("github api: %s %s: %w", method, rawURL, err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", apiVersion)
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("github api: %s %s: %w", method, rawURL, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return nil, fmt.Errorf("github api: %s %s: read answer: %w", method, rawURL, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ae := &APIError{Method: method, URL: rawURL, StatusCode: resp.StatusCode}
		if json.Unmarshal(data, ae) != nil {
			ae.Message = strings.TrimSpace(string(data))
			if len(ae.Message) > 200 {
				ae.Message = ae.Message[:200] + "..."
			}
		}
		return resp.Header, ae
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("github api: %s %s: decode answer: %w", method, rawURL, err)
		}
	}
	return resp.Header, nil
}

// nextPage returns the rel="next" target of a Link header, or "".
func nextPage(link string) string {
	for _, part := range strings.Split(link, ",") {
		target, params, ok := strings.Cut(part, ";")
		if !ok {
			continue
		}
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.TrimSpace(k) != "rel" {
				continue
			}
			for _, rel := range strings.Fields(strings.Trim(strings.TrimSpace(v), `"`)) {
				if rel == "next" {
					return target[1 : len(target)-1]
				}
			}
		}
	}
	return ""
}

// maxPages bounds pagination: 100 pages of 100 comments.
const maxPages = 100

// ListComments calls each for every comment on issue or pull request number
// in repo, oldest first, following the Link header 100 at a time, until each
// returns false.
func (c *Client) ListComments(ctx context.Context, repo Repo, number int, each func(Comment) bool) error {
	next, err := c.repoEndpoint(repo, fmt.Sprintf("/issues/%d/comments", number), url.Values{"per_page": {"100"}})
	if err != nil {
		return err
	}
	for page := 0; next != ""; page++ {
		if page == maxPages {
			return fmt.Errorf("github api: comments on %s#%d: more than %d pages", repo, number, maxPages)
		}
		var comments []Comment
		h, err := c.do(ctx, http.MethodGet, next, nil, &comments)
		if err != nil {
			return err
		}
		for _, cm := range comments {
			if !each(cm) {
				return nil
			}
		}
		next = nextPage(h.Get("Link"))
		if next != "" {
			// Never send the token to another host than the API's.
			u, err := url.Parse(next)
			if err != nil || u.Host != c.base.Host || u.Scheme != c.base.Scheme {
				return fmt.Errorf("github api: comments on %s#%d: next page %q is not on %s", repo, number, next, c.base.Host)
			}
		}
	}
	return nil
}

// Identity is the login the token posts as: its user (GET /user), or
// ActionsBot for an installation token such as a workflow's GITHUB_TOKEN,
// which GET /user refuses (403).
func (c *Client) Identity(ctx context.Context) (string, error) {
	var u User
	_, err := c.do(ctx, http.MethodGet, c.endpoint("/user", nil), nil, &u)
	var ae *APIError
	switch {
	case errors.As(err, &ae) && (ae.StatusCode == http.StatusForbidden || ae.StatusCode == http.StatusNotFound):
		return ActionsBot, nil
	case err != nil:
		return "", err
	case u.Login == "":
		return "", fmt.Errorf("github api: GET /user named no login")
	}
	return u.Login, nil
}

// FindComment returns the first comment on number by author whose body
// starts with marker on a line of its own, as llmgate writes it, or nil
// when there is none. Comments by anyone else are never llmgate's, whatever
// they contain, and neither is one that only quotes the marker.
func (c *Client) FindComment(ctx context.Context, repo Repo, number int, marker, author string) (*Comment, error) {
	var found *Comment
	err := c.ListComments(ctx, repo, number, func(cm Comment) bool {
		rest, ok := strings.CutPrefix(cm.Body, marker)
		if strings.EqualFold(cm.User.Login, author) && ok && (rest == "" || rest[0] == '\n' || rest[0] == '\r') {
			found = &cm
			return false
		}
		return true
	})
	return found, err
}

// CreateComment posts a new comment on issue or pull request number.
func (c *Client) CreateComment(ctx context.Context, repo Repo, number int, body string) (*Comment, error) {
	var cm Comment
	u, err := c.repoEndpoint(repo, fmt.Sprintf("/issues/%d/comments", number), nil)
	if err != nil {
		return nil, err
	}
	if _, err := c.do(ctx, http.MethodPost, u, map[string]string{"body": body}, &cm); err != nil {
		return nil, err
	}
	return &cm, nil
}

// UpdateComment replaces the body of comment id.
func (c *Client) UpdateComment(ctx context.Context, repo Repo, id int64, body string) (*Comment, error) {
	var cm Comment
	u, err := c.repoEndpoint(repo, fmt.Sprintf("/issues/comments/%d", id), nil)
	if err != nil {
		return nil, err
	}
	if _, err := c.do(ctx, http.MethodPatch, u, map[string]string{"body": body}, &cm); err != nil {
		return nil, err
	}
	return &cm, nil
}
