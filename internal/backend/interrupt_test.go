package backend

import (
	"context"
	"errors"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	tc "github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"
)

// TestInterruptAtEveryStartPhase cancels Run's context (what SIGINT does)
// at each point of the start-up sequence, through testcontainers' lifecycle
// hooks, and checks that Run returns and Stop leaves no container of the
// session behind: before the create call, right after it, before and after
// the start, after the readiness check; and a create that went through on
// the daemon while the client saw only an error (the signal arrived
// mid-call), with the container appearing a moment later.
func TestInterruptAtEveryStartPhase(t *testing.T) {
	image := simImage(t)
	type phase struct {
		name  string
		hooks func(cancel context.CancelFunc, orphan func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks
	}
	cancelled := func(cancel context.CancelFunc) error { cancel(); return context.Canceled }
	phases := []phase{
		{"before create", func(cancel context.CancelFunc, _ func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PreCreates: []tc.ContainerRequestHook{func(context.Context, tc.ContainerRequest) error { cancel(); return nil }}}
		}},
		{"create answered, hook fails", func(cancel context.CancelFunc, _ func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PostCreates: []tc.ContainerHook{func(context.Context, tc.Container) error { return cancelled(cancel) }}}
		}},
		{"after create, before start", func(cancel context.CancelFunc, _ func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PostCreates: []tc.ContainerHook{func(context.Context, tc.Container) error { cancel(); return nil }}}
		}},
		{"start sent", func(cancel context.CancelFunc, _ func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PreStarts: []tc.ContainerHook{func(context.Context, tc.Container) error { cancel(); return nil }}}
		}},
		{"started, not ready", func(cancel context.CancelFunc, _ func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PostStarts: []tc.ContainerHook{func(context.Context, tc.Container) error { cancel(); return nil }}}
		}},
		{"ready", func(cancel context.CancelFunc, _ func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PostReadies: []tc.ContainerHook{func(context.Context, tc.Container) error { cancel(); return nil }}}
		}},
		{"create went through unseen", func(cancel context.CancelFunc, orphan func(tc.ContainerRequest) error) tc.ContainerLifecycleHooks {
			return tc.ContainerLifecycleHooks{PreCreates: []tc.ContainerRequestHook{func(_ context.Context, req tc.ContainerRequest) error {
				cancel()
				return errors.Join(context.Canceled, orphan(req))
			}}}
		}},
	}
	for _, p := range phases {
		t.Run(p.name, func(t *testing.T) {
			session := newSession(t)
			cli, err := tc.NewDockerClientWithOpts(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			// orphan creates, from another client, the container the
			// request describes, as the daemon does when its client gives
			// up mid-call; Run never hears of it.
			orphanMade := make(chan error, 1)
			orphan := func(req tc.ContainerRequest) error {
				go func() {
					_, err := cli.ContainerCreate(context.WithoutCancel(t.Context()), client.ContainerCreateOptions{
						Config: &container.Config{Image: req.Image, Labels: req.Labels, Cmd: req.Cmd},
					})
					orphanMade <- err
				}()
				return nil
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			c, runErr := Run(ctx, image,
				WithSession(session), WithoutVolumes(), WithLogger(tclog.TestLogger(t)),
				WithModel("test-model"), WithArgs("--profile", "tiny"),
				WithCustomizers(tc.WithAdditionalLifecycleHooks(p.hooks(cancel, orphan))))
			if err := c.Stop(context.Background()); err != nil {
				t.Errorf("Stop: %v", err)
			}
			if p.name == "create went through unseen" {
				if err := <-orphanMade; err != nil {
					t.Fatalf("making the orphan: %v", err)
				}
			}
			t.Logf("Run: %v", runErr)
			if runErr == nil && p.name != "ready" {
				t.Errorf("Run succeeded although interrupted at %s", p.name)
			}
			assertNoContainers(t, session)
		})
	}
}

// TestCleanupRemovesNeverStartedContainer checks the backstop that a second
// signal runs, Cleanup by session label, also removes a container that was
// created but never started.
func TestCleanupRemovesNeverStartedContainer(t *testing.T) {
	session := newSession(t)
	cli, err := tc.NewDockerClientWithOpts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ContainerCreate(t.Context(), client.ContainerCreateOptions{
		Config: &container.Config{Image: simImage(t), Labels: map[string]string{LabelSession: session}},
	}); err != nil {
		t.Fatal(err)
	}
	if ids, err := SessionContainers(t.Context(), session); err != nil || len(ids) != 1 {
		t.Fatalf("the created container is not listed: %v, %v", ids, err)
	}
	if err := Cleanup(t.Context(), session); err != nil {
		t.Fatalf("Cleanup: %v", err)
	}
	assertNoContainers(t, session)
}
