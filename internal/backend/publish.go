package backend

import (
	"fmt"
	"net/netip"
	"net/url"
	"os"
)

// PublishHostEnv names the environment variable that sets the host
// address server containers publish their port on, for when llmgate runs
// in a container of its own beside the host's Docker (there the host's
// loopback is not llmgate's): the Docker bridge's gateway, say 172.17.0.1.
const PublishHostEnv = "LLMGATE_PUBLISH_HOST"

// publishAddr is where a server container's port is published: on the
// host's loopback when the Docker daemon is local (a unix socket or a named
// pipe), so that nothing else on the network reaches the server, whose
// VLLM_SERVER_DEV_MODE also opens /collective_rpc, /sleep and the like; or
// the address PublishHostEnv gives. A remote daemon (tcp://) publishes on
// every interface (the zero Addr): llmgate reaches it over the network.
func publishAddr(daemonHost string) (netip.Addr, error) {
	if v := os.Getenv(PublishHostEnv); v != "" {
		a, err := netip.ParseAddr(v)
		if err != nil {
			return netip.Addr{}, fmt.Errorf("%s=%q: want an IP address of the Docker host, such as 172.17.0.1", PublishHostEnv, v)
		}
		return a, nil
	}
	u, err := url.Parse(daemonHost)
	if err != nil || (u.Scheme != "unix" && u.Scheme != "npipe") {
		return netip.Addr{}, nil
	}
	return netip.MustParseAddr("127.0.0.1"), nil
}
