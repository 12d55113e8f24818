package backend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
)

// NewSession returns a fresh random session id for LabelSession.
func NewSession() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// SessionContainers lists the ids of the containers, running or not, labelled
// with the session id.
func SessionContainers(ctx context.Context, session string) ([]string, error) {
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, unavailable(fmt.Errorf("connect to docker: %w", err))
	}
	defer cli.Close()
	return listSession(ctx, cli, session)
}

func listSession(ctx context.Context, cli client.ContainerAPIClient, session string) ([]string, error) {
	if session == "" {
		return nil, errors.New("list session containers: empty session id")
	}
	return listLabelled(ctx, cli, LabelSession, session)
}

// listLabelled lists the containers, running or not, with label key=value.
func listLabelled(ctx context.Context, cli client.ContainerAPIClient, key, value string) ([]string, error) {
	res, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", key+"="+value),
	})
	if err != nil {
		return nil, fmt.Errorf("list containers labelled %s=%s: %w", key, value, err)
	}
	ids := make([]string, 0, len(res.Items))
	for _, it := range res.Items {
		ids = append(ids, it.ID)
	}
	return ids, nil
}

// removeAll force-removes containers with their anonymous volumes.
func removeAll(ctx context.Context, cli client.ContainerAPIClient, ids []string) error {
	var errs []error
	for _, id := range ids {
		if _, err := cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil && !cerrdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("remove container %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}

// Cleanup force-removes every container labelled with the session id, with
// its anonymous volumes; named cache volumes are kept. It is the backstop for
// a process that died before calling Stop.
func Cleanup(ctx context.Context, session string) error {
	cli, err := tc.NewDockerClientWithOpts(ctx)
	if err != nil {
		return unavailable(fmt.Errorf("connect to docker: %w", err))
	}
	defer cli.Close()
	ids, err := listSession(ctx, cli, session)
	if err != nil {
		return err
	}
	return removeAll(ctx, cli, ids)
}
