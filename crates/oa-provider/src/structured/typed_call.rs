//! The typed call: [`complete_as`] reads the content straight into the caller's type while checking it against the
//! schema (`oa_schema::Validator::deserialize_str`), building no `serde_json::Value`, and falls back to the
//! parse-and-validate route whenever that cannot decide (a failure then carries the full report, and reask works
//! as on every call).
//!
//! The object-safe [`Provider`] trait stays object-safe: a type-erased [`TypedDecoder`] goes beside the borrowed
//! request ([`Provider::complete_with`]), and the content check tries it first; a decoded `T` waits in the
//! decoder's slot until `complete_as` takes it.

use serde::de::DeserializeOwned;

use crate::call::{CallExtras, CompletionRequest, Provider};
use crate::model::{ParsedAsError, ProviderError, Response, deserialize_as};
use crate::structured::TypedDecoder;

/// A typed call's result: the value as `T`, and the response it came with.
#[derive(Debug, Clone, PartialEq)]
pub struct Typed<T> {
    /// The content as `T`, validated against the request's schema.
    pub value: T,
    /// The response; its `parsed` is `None` when the value was decoded on the typed route (no `Value` was built),
    /// `Some` when the call took the parse-and-validate route.
    pub response: Response,
}

/// Why a typed call gave no value.
#[derive(Debug, thiserror::Error)]
pub enum CompleteAsError {
    /// The call failed (a `structured_output_invalid` failure carries every violation, as on any call).
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The call succeeded, but its value does not read as `T` ([`ParsedAsError::Deserialize`] names where: the
    /// schema said less than the type), or there is no value (no schema, or the model called tools).
    #[error(transparent)]
    Parsed(#[from] ParsedAsError),
}

/// Makes the call and reads the structured content into `T`, validating it against the request's schema while
/// decoding (no `serde_json::Value` is built when the route decides; see
/// [`Validator::deserialize_str`](oa_schema::Validator::deserialize_str) for what it covers). Telemetry, retry and
/// reask are those of [`Provider::complete`].
///
/// # Errors
/// [`CompleteAsError::Provider`] when the call fails; [`CompleteAsError::Parsed`] when the validated value does
/// not fit `T` or there is none.
///
/// ```
/// use oa_provider::{CompleteAsError, CompletionRequest, Message, Provider, complete_as};
///
/// #[derive(serde::Deserialize)]
/// struct Capital {
///     city: String,
/// }
///
/// async fn ask(provider: &dyn Provider) -> Result<String, CompleteAsError> {
///     let request = CompletionRequest::new(vec![Message::user("The capital of France?")])
///         .with_response_schema(serde_json::json!({
///             "type": "object",
///             "properties": { "city": { "type": "string" } },
///             "required": ["city"],
///             "additionalProperties": false
///         }));
///     let typed = complete_as::<Capital>(provider, &request).await?;
///     Ok(typed.value.city)
/// }
/// ```
pub async fn complete_as<T>(
    provider: &dyn Provider,
    request: &CompletionRequest,
) -> Result<Typed<T>, CompleteAsError>
where
    T: DeserializeOwned + Send + 'static,
{
    let (decoder, slot) = TypedDecoder::into_slot::<T>();
    let extras = CallExtras::default().with_typed_decoder(decoder);
    let response = provider.complete_with(request, &extras).await?;
    // A response with a parsed value took the parse-and-validate route (whatever an earlier attempt left in the
    // slot): T is read from that value, as `parsed_as` reads it.
    let value = match &response.parsed {
        Some(parsed) => deserialize_as(parsed)?,
        None => slot.take().ok_or(ParsedAsError::NoValue)?,
    };
    Ok(Typed { value, response })
}
