package sim

import (
	"io"
	"sort"
	"strconv"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"google.golang.org/protobuf/proto"
)

// writeCacheConfigInfo writes vLLM's vllm:cache_config_info gauge: value 1,
// the engine's cache configuration as labels, formatted the way Python's
// str() formats them ("0.7", "True"), so a scraper can see which flags the
// server really started with.
func writeCacheConfigInfo(w io.Writer, r *resolved) error {
	info := map[string]string{
		"block_size":             strconv.Itoa(r.BlockSize),
		"cache_dtype":            r.KVCacheDtype,
		"enable_prefix_caching":  pyBool(!r.NoPrefixCaching),
		"gpu_memory_utilization": strconv.FormatFloat(r.GPUMemoryUtilization, 'g', -1, 64),
		"num_gpu_blocks":         strconv.Itoa(r.numBlocks),
	}
	keys := make([]string, 0, len(info))
	for k := range info {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	labels := make([]*dto.LabelPair, 0, len(keys)+1)
	for _, k := range keys {
		labels = append(labels, &dto.LabelPair{Name: proto.String(k), Value: proto.String(info[k])})
	}
	labels = append(labels, &dto.LabelPair{Name: proto.String("engine"), Value: proto.String("0")})
	fam := &dto.MetricFamily{
		Name: proto.String("vllm:cache_config_info"), Help: proto.String("Information of the LLMEngine CacheConfig"),
		Type:   dto.MetricType_GAUGE.Enum(),
		Metric: []*dto.Metric{{Label: labels, Gauge: &dto.Gauge{Value: proto.Float64(1)}}},
	}
	_, err := expfmt.MetricFamilyToText(w, fam)
	return err
}

func pyBool(b bool) string {
	if b {
		return "True"
	}
	return "False"
}
