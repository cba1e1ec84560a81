//! `ready()` for the OpenAI mapping (§5): `GET {base}/models`, the bound model listed and, where the server
//! reports a `status`, loaded.

use serde_json::Value;

use crate::call::wire::WireFormat;
use crate::endpoint::Endpoint;
use crate::model::{Category, ProviderError};
use crate::openai::ChatCompletions;

pub(crate) async fn probe(endpoint: &Endpoint) -> Result<(), ProviderError> {
    let transport = &endpoint.transport;
    let mut reply = transport.get("/models").await?;
    let body = transport.read_body(&mut reply).await?;
    if !(200..300).contains(&reply.status) {
        return Err(ChatCompletions.error_for_status(
            reply.status,
            &body,
            reply.retry_after.as_deref(),
            &|text| transport.scrub(text),
        ));
    }
    let listing: Value = serde_json::from_slice(&body)
        .map_err(|_| ProviderError::invalid_response("model listing is not JSON"))?;
    let models = listing
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| ProviderError::invalid_response("model listing has no data array"))?;
    let entry = models
        .iter()
        .find(|entry| entry.get("id").and_then(Value::as_str) == Some(endpoint.model.as_str()))
        .ok_or_else(|| {
            ProviderError::new(
                Category::InvalidModel,
                "the bound model is not in the provider's listing",
            )
        })?;
    // Local servers (LM Studio, some vLLM fronts) report a load state; hosted APIs do not, and listed means ready.
    match entry.get("status").and_then(Value::as_str) {
        None | Some("loaded" | "ready" | "available") => Ok(()),
        Some(_) => Err(ProviderError::new(
            Category::ModelNotLoaded,
            "the bound model is listed but not loaded",
        )),
    }
}
