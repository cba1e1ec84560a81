//! `ready()` by looking the bound model up (§5): `GET` the mapping's model resource; a 2xx JSON object means the
//! model is known and served, and any other status is that mapping's error for it (`provider_invalid_model` for a
//! 404, `provider_authentication` for a bad key, ...). Anthropic (`GET /v1/models/{model}`) and Gemini
//! (`GET /v1beta/models/{model}`) both answer this way.

use serde_json::Value;

use crate::call::wire::WireFormat;
use crate::endpoint::Endpoint;
use crate::http::path_segment;
use crate::model::ProviderError;

pub(crate) async fn look_up_model(endpoint: &Endpoint, wire: &dyn WireFormat) -> Result<(), ProviderError> {
    let transport = &endpoint.transport;
    let path = format!("/models/{}", path_segment(&endpoint.model));
    let mut reply = transport.get(&path).await?;
    let body = transport.read_body(&mut reply).await?;
    if !(200..300).contains(&reply.status) {
        return Err(
            wire.error_for_status(reply.status, &body, reply.retry_after.as_deref(), &|text| {
                transport.scrub(text)
            }),
        );
    }
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(_)) => Ok(()),
        _ => Err(ProviderError::invalid_response(
            "the model resource is not a JSON object",
        )),
    }
}
