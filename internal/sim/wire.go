package sim

// JSON shapes of vLLM's non-streaming responses (vLLM 0.11, pydantic
// model_dump order, nulls included).

type usageInfo struct {
	PromptTokens        int  `json:"prompt_tokens"`
	TotalTokens         int  `json:"total_tokens"`
	CompletionTokens    int  `json:"completion_tokens"`
	PromptTokensDetails *any `json:"prompt_tokens_details"`
}

type completionChoice struct {
	Index          int    `json:"index"`
	Text           string `json:"text"`
	Logprobs       *any   `json:"logprobs"`
	FinishReason   string `json:"finish_reason"`
	StopReason     *any   `json:"stop_reason"`
	TokenIDs       *any   `json:"token_ids"`
	PromptLogprobs *any   `json:"prompt_logprobs"`
	PromptTokenIDs *any   `json:"prompt_token_ids"`
}

type completionResponse struct {
	ID                string             `json:"id"`
	Object            string             `json:"object"`
	Created           int64              `json:"created"`
	Model             string             `json:"model"`
	Choices           []completionChoice `json:"choices"`
	ServiceTier       *any               `json:"service_tier"`
	SystemFingerprint *any               `json:"system_fingerprint"`
	Usage             usageInfo          `json:"usage"`
	KVTransferParams  *any               `json:"kv_transfer_params"`
}

type chatMessageOut struct {
	Role             string `json:"role"`
	Content          string `json:"content"`
	Refusal          *any   `json:"refusal"`
	Annotations      *any   `json:"annotations"`
	Audio            *any   `json:"audio"`
	FunctionCall     *any   `json:"function_call"`
	ToolCalls        []any  `json:"tool_calls"`
	ReasoningContent *any   `json:"reasoning_content"`
}

type chatChoice struct {
	Index        int            `json:"index"`
	Message      chatMessageOut `json:"message"`
	Logprobs     *any           `json:"logprobs"`
	FinishReason string         `json:"finish_reason"`
	StopReason   *any           `json:"stop_reason"`
	TokenIDs     *any           `json:"token_ids"`
}

type chatResponse struct {
	ID                string       `json:"id"`
	Object            string       `json:"object"`
	Created           int64        `json:"created"`
	Model             string       `json:"model"`
	Choices           []chatChoice `json:"choices"`
	ServiceTier       *any         `json:"service_tier"`
	SystemFingerprint *any         `json:"system_fingerprint"`
	Usage             usageInfo    `json:"usage"`
	PromptLogprobs    *any         `json:"prompt_logprobs"`
	PromptTokenIDs    *any         `json:"prompt_token_ids"`
	KVTransferParams  *any         `json:"kv_transfer_params"`
}

type modelPermission struct {
	ID                 string `json:"id"`
	Object             string `json:"object"`
	Created            int64  `json:"created"`
	AllowCreateEngine  bool   `json:"allow_create_engine"`
	AllowSampling      bool   `json:"allow_sampling"`
	AllowLogprobs      bool   `json:"allow_logprobs"`
	AllowSearchIndices bool   `json:"allow_search_indices"`
	AllowView          bool   `json:"allow_view"`
	AllowFineTuning    bool   `json:"allow_fine_tuning"`
	Organization       string `json:"organization"`
	Group              *any   `json:"group"`
	IsBlocking         bool   `json:"is_blocking"`
}

type modelCard struct {
	ID          string            `json:"id"`
	Object      string            `json:"object"`
	Created     int64             `json:"created"`
	OwnedBy     string            `json:"owned_by"`
	Root        string            `json:"root"`
	Parent      *any              `json:"parent"`
	MaxModelLen int               `json:"max_model_len"`
	Permission  []modelPermission `json:"permission"`
}

type modelList struct {
	Object string      `json:"object"`
	Data   []modelCard `json:"data"`
}

type tokenizeResponse struct {
	Count       int       `json:"count"`
	MaxModelLen int       `json:"max_model_len"`
	Tokens      []int     `json:"tokens"`
	TokenStrs   *[]string `json:"token_strs"`
}
