package backend

import (
	"context"
	"testing"
	"time"

	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// removeVolume deletes a named volume a test created.
func removeVolume(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Errorf("remove volume %s: %v", name, err)
		return
	}
	defer cli.Close()
	if _, err := cli.VolumeRemove(ctx, name, client.VolumeRemoveOptions{Force: true}); err != nil {
		t.Errorf("remove volume %s: %v", name, err)
	}
}
