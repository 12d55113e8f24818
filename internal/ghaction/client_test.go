package ghaction

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

var octoGate = Repo{Owner: "octo", Name: "gate"}

func TestUpsertStickyCreates(t *testing.T) {
	// No comment of ours yet (only someone else's): POST a new one with the marker.
	gh := ghactiontest.NewGitHub(t, "")
	gh.Seed(7, 3, func(i int) string { return fmt.Sprintf("LGTM %d", i) })
	c, err := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.UpsertSticky(context.Background(), octoGate, 7, "llama-8b-gate", "## llmgate: pass\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.Truncated || res.Comment == nil || res.Comment.HTMLURL == "" {
		t.Errorf("result = %+v, want a created comment with its URL", res)
	}
	cms := gh.Comments(7)
	if len(cms) != 4 || cms[3].Body != "<!-- llmgate:llama-8b-gate -->\n## llmgate: pass\n" {
		t.Errorf("comments = %+v, want ours appended with the marker", cms)
	}
	if log := strings.Join(gh.Requests(), "\n"); log != "GET /user\nGET /repos/octo/gate/issues/7/comments?per_page=100\nPOST /repos/octo/gate/issues/7/comments" {
		t.Errorf("requests:\n%s", log)
	}
}

func TestUpsertStickyUpdatesOnPageTwo(t *testing.T) {
	// 130 comments; ours is number 120, on the second page of 100: PATCH it, post nothing.
	gh := ghactiontest.NewGitHub(t, "/api/v3") // GitHub Enterprise-style API root
	ids := gh.Seed(7, 130, func(i int) string {
		if i == 119 {
			return "<!-- llmgate:llama-8b-gate -->\nold report"
		}
		if i == 5 {
			return "<!-- llmgate:other-suite -->\nanother suite's report"
		}
		return "chatter"
	})
	c, err := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.UpsertSticky(context.Background(), octoGate, 7, "llama-8b-gate", "new report", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Created || res.Comment.ID != ids[119] {
		t.Errorf("result = %+v, want comment %d updated", res, ids[119])
	}
	cms := gh.Comments(7)
	if len(cms) != 130 || cms[119].Body != "<!-- llmgate:llama-8b-gate -->\nnew report" || cms[5].Body != "<!-- llmgate:other-suite -->\nanother suite's report" {
		t.Errorf("comment 120 = %q, other suite's = %q", cms[119].Body, cms[5].Body)
	}
	want := []string{
		"GET /api/v3/user",
		"GET /api/v3/repos/octo/gate/issues/7/comments?per_page=100",
		"GET /api/v3/repositories/1/issues/7/comments?per_page=100&page=2",
		fmt.Sprintf("PATCH /api/v3/repos/octo/gate/issues/comments/%d", ids[119]),
	}
	if got := gh.Requests(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("requests:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUpsertStickyTruncatesLargeBody(t *testing.T) {
	// A 100k-character report is cut to GitHub's limit (the fake, like GitHub, answers 422 above it).
	gh := ghactiontest.NewGitHub(t, "")
	c, _ := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	var b strings.Builder
	b.WriteString("## llmgate: fail\n\n```mermaid\n")
	for i := 0; b.Len() < 100_000; i++ {
		fmt.Fprintf(&b, "    bar %d é🚀\n", i)
	}
	b.WriteString("```\n")
	res, err := c.UpsertSticky(context.Background(), octoGate, 7, "big", b.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || res.Shortened {
		t.Errorf("result = %+v, want truncated and posted in full form", res)
	}
	body := gh.Comments(7)[0].Body
	if n := commentLen(body); n > MaxCommentChars || n < MaxCommentChars-1000 {
		t.Errorf("posted %d characters, want just under %d", n, MaxCommentChars)
	}
	if !strings.HasPrefix(body, "<!-- llmgate:big -->\n## llmgate: fail") || !strings.Contains(body, "cut to") || !strings.Contains(body, "\n```\n\n> [!NOTE]") {
		t.Errorf("body does not keep the marker, close the fence and say it was cut:\n...%s", body[len(body)-300:])
	}
}

func TestUpsertSticky422PostsShortForm(t *testing.T) {
	// GitHub refuses the body anyway (here: a server limit of 300): post a short pointer to the run instead.
	gh := ghactiontest.NewGitHub(t, "")
	gh.SetMaxBody(300)
	c, _ := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	res, err := c.UpsertSticky(context.Background(), octoGate, 7, "s", strings.Repeat("x", 1000), "https://github.com/octo/gate/actions/runs/42")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Shortened {
		t.Errorf("result = %+v, want the short form", res)
	}
	body := gh.Comments(7)[0].Body
	for _, want := range []string{"<!-- llmgate:s -->", "422", "body is too long", "actions/runs/42"} {
		if !strings.Contains(body, want) {
			t.Errorf("short body lacks %q: %s", want, body)
		}
	}
}

func TestUpsertSticky422Twice(t *testing.T) {
	// Even the short form is refused: the error names the 422 and GitHub's reason.
	gh := ghactiontest.NewGitHub(t, "")
	gh.SetMaxBody(10)
	c, _ := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	_, err := c.UpsertSticky(context.Background(), octoGate, 7, "s", "report", "")
	if !IsUnprocessable(err) || !strings.Contains(err.Error(), "422 Unprocessable Entity: Validation Failed; IssueComment.body: body is too long (maximum is 10 characters)") {
		t.Errorf("error = %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	gh := ghactiontest.NewGitHub(t, "")
	tests := []struct {
		name   string
		token  string
		wantIn string
		check  func(error) bool
	}{
		// a wrong token is a 401, which counts as forbidden
		{name: "bad credentials", token: "wrong", wantIn: "401 Unauthorized: Bad credentials", check: IsForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := NewClient(gh.APIURL(), tt.token, nil)
			_, err := c.CreateComment(context.Background(), octoGate, 7, "x")
			if err == nil || !tt.check(err) || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("error = %v, want one containing %q", err, tt.wantIn)
			}
		})
	}
}

func TestPaginationStaysOnAPIHost(t *testing.T) {
	// A Link header pointing at another host must not receive the token.
	var leaked bool
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { leaked = true }))
	defer evil.Close()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<`+evil.URL+`/page2>; rel="next"`)
		fmt.Fprint(w, `[]`)
	}))
	defer api.Close()
	c, _ := NewClient(api.URL, "t", nil)
	_, err := c.FindComment(context.Background(), octoGate, 1, "m", ActionsBot)
	if err == nil || leaked {
		t.Errorf("err = %v, leaked = %v; want an error and no request to the other host", err, leaked)
	}
}

func TestNextPage(t *testing.T) {
	tests := []struct {
		name, link, want string
	}{
		// GitHub's usual form
		{name: "next and last", link: `<https://api.github.com/r/1/c?page=2>; rel="next", <https://api.github.com/r/1/c?page=5>; rel="last"`, want: "https://api.github.com/r/1/c?page=2"},
		// on the last page there is no next
		{name: "prev only", link: `<https://a/x?page=1>; rel="prev", <https://a/x?page=1>; rel="first"`, want: ""},
		// no header at all
		{name: "empty", link: "", want: ""},
		// rel may list several values
		{name: "multi rel", link: `<https://a/x?page=3>; rel="last next"`, want: "https://a/x?page=3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nextPage(tt.link); got != tt.want {
				t.Errorf("nextPage = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNewClientRejectsBadURL(t *testing.T) {
	if _, err := NewClient("api.github.com", "t", nil); err == nil {
		t.Error("no error for a URL without a scheme")
	}
}

// The probe: owner and repository names were escaped twice in API paths
// ("a b" became a%2520b) and ".." passed through, moving a request to
// another path of the API. Names are now checked to be GitHub's and go
// into the path as they are.
func TestRepoNamesInAPIPaths(t *testing.T) {
	for _, bad := range []string{"octo/..", "../gate", "octo/.", "a b/gate", "octo/g%2Fate", "octo/gate/x", "octo/", "/gate", "octo", "octo/g?ate", "octo/g#ate", "octo/" + strings.Repeat("x", 101)} {
		if _, err := ParseRepo(bad); err == nil {
			t.Errorf("ParseRepo(%q) accepted it", bad)
		}
	}
	gh := ghactiontest.NewGitHub(t, "")
	c, _ := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	for _, r := range []Repo{{Owner: "octo", Name: ".."}, {Owner: "..", Name: "gate"}, {Owner: "a b", Name: "gate"}} {
		if _, err := c.CreateComment(context.Background(), r, 7, "x"); err == nil {
			t.Errorf("CreateComment on %v was sent", r)
		}
		if _, err := c.FindComment(context.Background(), r, 7, "m", ActionsBot); err == nil {
			t.Errorf("FindComment on %v was sent", r)
		}
	}
	if got := gh.Requests(); len(got) != 0 {
		t.Errorf("requests for refused names reached the API: %q", got)
	}
	odd, err := ParseRepo("my.org-1/my_repo.go")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = c.CreateComment(context.Background(), odd, 7, "x")
	if got := gh.Requests(); len(got) != 1 || got[0] != "POST /repos/my.org-1/my_repo.go/issues/7/comments" {
		t.Errorf("requests = %q, want the names in the path as they are", got)
	}
}

// An existing comment with the marker of an older llmgate is edited, not
// duplicated, and gets the new marker; a comment of the bot's that only
// quotes a marker is never taken for llmgate's.
func TestUpsertStickyMigratesLegacyMarker(t *testing.T) {
	gh := ghactiontest.NewGitHub(t, "")
	gh.SeedBy(7, ghactiontest.BotLogin, 1, func(int) string { return "see <!-- llmgate:my suite -->\nquoted" })
	ids := gh.SeedBy(7, ghactiontest.BotLogin, 1, func(int) string { return "<!-- llmgate:my suite -->\nold report" })
	c, _ := NewClient(gh.APIURL(), ghactiontest.Token, nil)
	res, err := c.UpsertSticky(context.Background(), octoGate, 7, "my suite", "new report\n", "")
	if err != nil {
		t.Fatal(err)
	}
	cms := gh.Comments(7)
	if res.Created || len(cms) != 2 || cms[1].ID != ids[0] || cms[1].Body != "<!-- llmgate:my%20suite -->\nnew report\n" || cms[0].Body != "see <!-- llmgate:my suite -->\nquoted" {
		t.Errorf("created=%v, comments %+v; want the legacy one edited with the new marker", res.Created, cms)
	}
	// next time the new marker finds it
	if res, err := c.UpsertSticky(context.Background(), octoGate, 7, "my suite", "newer\n", ""); err != nil || res.Created || len(gh.Comments(7)) != 2 {
		t.Errorf("second upsert: %+v, %v", res, err)
	}
	// another suite never takes it: "perf" and "perf --->" have their own comments
	for _, s := range []string{"perf", "perf --->"} {
		if res, err := c.UpsertSticky(context.Background(), octoGate, 7, s, "r\n", ""); err != nil || !res.Created {
			t.Errorf("suite %q: %+v, %v; want a comment of its own", s, res, err)
		}
	}
}
