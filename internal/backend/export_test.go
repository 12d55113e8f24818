package backend

// Test helpers shared with the end-to-end tests in package target_test.
var (
	SimImage          = simImage
	LLMGateBinary     = llmgateBinary
	NewTestSession    = newSession
	AssertNoLeftovers = assertNoContainers
	FetchCacheConfig  = fetchCacheConfig
)
