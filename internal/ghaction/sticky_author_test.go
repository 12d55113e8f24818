package ghaction

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/llmgate/llmgate/internal/ghactiontest"
)

// TestUpsertStickyIgnoresOtherAuthors checks that a comment holding the
// marker but written by someone else is never edited: with a workflow's
// token (github-actions[bot]) and with a user's token, only that identity's
// own comment is updated, and a new one is posted when it has none.
func TestUpsertStickyIgnoresOtherAuthors(t *testing.T) {
	const marker = "<!-- llmgate:llama-8b-gate -->"
	cases := []struct {
		name, user string // user "" is the workflow's GITHUB_TOKEN
		mineBy     string // author of the comment that should be updated; "" none
	}{
		{name: "bot token, only a stranger's marker", user: ""},
		{name: "bot token, own comment after a stranger's", user: "", mineBy: ghactiontest.BotLogin},
		{name: "user token, only the bot's marker", user: "alice"},
		{name: "user token, own comment", user: "alice", mineBy: "alice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gh := ghactiontest.NewGitHub(t, "")
			gh.SetUser(c.user)
			strangerID := gh.SeedBy(7, "mallory", 1, func(int) string { return marker + "\nplanted by mallory" })[0]
			if c.user != "" {
				gh.SeedBy(7, ghactiontest.BotLogin, 1, func(int) string { return marker + "\nthe bot's" })
			}
			var mineID int64
			if c.mineBy != "" {
				mineID = gh.SeedBy(7, c.mineBy, 1, func(int) string { return marker + "\nold report" })[0]
			}
			cl, err := NewClient(gh.APIURL(), ghactiontest.Token, nil)
			if err != nil {
				t.Fatal(err)
			}
			res, err := cl.UpsertSticky(context.Background(), octoGate, 7, "llama-8b-gate", "new report", "")
			if err != nil {
				t.Fatal(err)
			}
			for _, cm := range gh.Comments(7) {
				switch {
				case cm.ID == strangerID && cm.Body != marker+"\nplanted by mallory":
					t.Errorf("mallory's comment was edited: %q", cm.Body)
				case cm.User.Login == ghactiontest.BotLogin && c.user != "" && cm.Body != marker+"\nthe bot's":
					t.Errorf("a user's token edited the bot's comment: %q", cm.Body)
				}
			}
			for _, r := range gh.Requests() {
				if strings.HasPrefix(r, "PATCH") && (mineID == 0 || !strings.HasSuffix(r, "/"+strconv.FormatInt(mineID, 10))) {
					t.Errorf("PATCHed a comment that is not the poster's: %s", r)
				}
			}
			if mineID != 0 && (res.Created || res.Comment.ID != mineID) {
				t.Errorf("result %+v, want comment %d updated", res, mineID)
			}
			if mineID == 0 && !res.Created {
				t.Errorf("result %+v, want a new comment", res)
			}
		})
	}
}
