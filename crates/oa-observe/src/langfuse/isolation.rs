//! Observability §6's payload-leak invariant for a Langfuse client oa builds (mode (b), proposals 0114, 0116,
//! 0117): which OpenTelemetry provider the client emits through ([`ProviderBinding`]), the isolated provider the
//! observer hands a client to build on ([`IsolatedProvider`]), and the decision taken at construction: proceed,
//! fail with [`LangfuseError::ProviderIsolationUnavailable`], or suppress every payload channel, with the
//! diagnostic log record each arm emits under its stable `openarmature.*` name (§7, 0121).

use std::sync::Arc;

use opentelemetry_sdk::trace::{SdkTracerProvider, TracerProviderBuilder};

use super::client::LangfuseError;

/// `openarmature.langfuse.payload_suppressed` (§6, 0116): the client's binding cannot be established, so every
/// payload channel is closed (WARNING).
pub const PAYLOAD_SUPPRESSED: &str = "openarmature.langfuse.payload_suppressed";
/// `openarmature.langfuse.shared_provider_accepted` (§6, 0116): the caller accepted a shared provider, payloads
/// go on (WARNING).
pub const SHARED_PROVIDER_ACCEPTED: &str = "openarmature.langfuse.shared_provider_accepted";
/// `openarmature.langfuse.shared_provider_no_payload` (§6, 0116): the client is on a provider oa did not isolate,
/// but no payload channel is live, so nothing leaks (INFO).
pub const SHARED_PROVIDER_NO_PAYLOAD: &str = "openarmature.langfuse.shared_provider_no_payload";
/// `openarmature.langfuse.supplied_client_shared_provider` (§6's MAY): a caller-supplied client says it emits
/// through a shared provider while a payload channel is live; the client is left as it is (WARNING).
pub const SUPPLIED_CLIENT_SHARED_PROVIDER: &str = "openarmature.langfuse.supplied_client_shared_provider";

/// Which OpenTelemetry tracer provider a [`LangfuseClient`](super::LangfuseClient) emits its observations through
/// (Langfuse's own SDKs emit them as spans), as the client reports it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ProviderBinding {
    /// None: the client sends to Langfuse directly ([`HttpLangfuseClient`](super::HttpLangfuseClient)) or keeps
    /// what it records in memory ([`LangfuseRecorder`](super::LangfuseRecorder)).
    NoProvider,
    /// The provider an [`IsolatedProvider`] built (only [`IsolatedProvider::build`] makes this value, so a client
    /// cannot claim an isolation it was not given).
    Isolated(IsolationToken),
    /// A provider shared with the application: the global one, or any the observer did not isolate.
    Shared,
    /// The client cannot say (the trait's default); an observer that built it fails safe.
    Unknown,
}

/// Identifies one isolated provider; compared by identity.
#[derive(Debug, Clone)]
pub struct IsolationToken(Arc<()>);

impl IsolationToken {
    fn same(&self, other: &IsolationToken) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// A tracer provider no one else holds, handed to the closure of
/// [`LangfuseObserverBuilder::from_credentials_with`](super::LangfuseObserverBuilder::from_credentials_with) for
/// a client that emits its observations as OpenTelemetry spans.
#[derive(Debug)]
pub struct IsolatedProvider {
    builder: TracerProviderBuilder,
    token: IsolationToken,
}

impl IsolatedProvider {
    pub(crate) fn new() -> Self {
        Self {
            builder: SdkTracerProvider::builder(),
            token: IsolationToken(Arc::new(())),
        }
    }

    pub(crate) fn token(&self) -> IsolationToken {
        self.token.clone()
    }

    /// Builds the provider, `configure` adding the client's exporter; the binding is what the client built on it
    /// reports from [`LangfuseClient::binding`](super::LangfuseClient::binding).
    ///
    /// ```
    /// use oa_observe::langfuse::{IsolatedProvider, ProviderBinding};
    /// # fn client(isolated: IsolatedProvider) {
    /// let (provider, binding) = isolated.build(|builder| builder);
    /// assert!(matches!(binding, ProviderBinding::Isolated(_)));
    /// # let _ = provider;
    /// # }
    /// ```
    pub fn build(
        self,
        configure: impl FnOnce(TracerProviderBuilder) -> TracerProviderBuilder,
    ) -> (SdkTracerProvider, ProviderBinding) {
        (
            configure(self.builder).build(),
            ProviderBinding::Isolated(self.token),
        )
    }
}

/// What the observer does with its payload channels, decided at construction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Posture {
    /// As configured.
    AsConfigured,
    /// Every payload channel closed (provider payload, the failure's error message, state, the trace hooks).
    Suppressed,
}

/// §6's decision for a client oa built (mode (b)): `live` says whether a payload channel is live (provider or
/// state payload on, or a trace hook supplied); `ours` is the token of the provider the observer isolated.
pub(crate) fn owned_client_posture(
    binding: &ProviderBinding,
    ours: Option<&IsolationToken>,
    live: bool,
    accept_shared: bool,
) -> Result<Posture, LangfuseError> {
    let isolated = match binding {
        ProviderBinding::NoProvider => true,
        ProviderBinding::Isolated(token) => ours.is_some_and(|ours| ours.same(token)),
        ProviderBinding::Shared | ProviderBinding::Unknown => false,
    };
    if isolated {
        return Ok(Posture::AsConfigured);
    }
    if accept_shared {
        // A provider-binding decision, reported whatever the payload switches say.
        tracing::warn!(
            name: SHARED_PROVIDER_ACCEPTED,
            target: "openarmature",
            "accept_shared_provider: the Langfuse client's observations may reach a tracer provider shared with \
             the application (acknowledged)"
        );
        return Ok(Posture::AsConfigured);
    }
    match (binding, live) {
        (ProviderBinding::Unknown, true) => {
            tracing::warn!(
                name: PAYLOAD_SUPPRESSED,
                target: "openarmature",
                "cannot establish the Langfuse client's tracer provider: suppressing the provider payload, the \
                 state payload and the trace hooks, so nothing harvested can reach a shared provider"
            );
            Ok(Posture::Suppressed)
        }
        (ProviderBinding::Unknown, false) => Ok(Posture::AsConfigured),
        (_, true) => Err(LangfuseError::ProviderIsolationUnavailable),
        (_, false) => {
            tracing::info!(
                name: SHARED_PROVIDER_NO_PAYLOAD,
                target: "openarmature",
                "the Langfuse client is bound to a tracer provider oa did not isolate; no payload channel is \
                 live, so nothing harvested reaches it"
            );
            Ok(Posture::AsConfigured)
        }
    }
}

/// §6's MAY for a caller-supplied client (mode (a)): it is never changed, but a shared binding with a live payload
/// channel is worth one warning.
pub(crate) fn supplied_client_check(binding: &ProviderBinding, live: bool) {
    if live && matches!(binding, ProviderBinding::Shared) {
        tracing::warn!(
            name: SUPPLIED_CLIENT_SHARED_PROVIDER,
            target: "openarmature",
            "the supplied Langfuse client emits through a tracer provider shared with the application while a \
             payload channel is live; isolate its provider to keep payloads off the application's backend"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posture(binding: &ProviderBinding, live: bool, accept: bool) -> Result<Posture, LangfuseError> {
        let ours = IsolatedProvider::new();
        owned_client_posture(binding, Some(&ours.token()), live, accept)
    }

    #[test]
    fn each_binding_takes_its_arm() {
        let ours = IsolatedProvider::new();
        let token = ours.token();
        let (_, own) = ours.build(|builder| builder);
        assert_eq!(
            owned_client_posture(&own, Some(&token), true, false),
            Ok(Posture::AsConfigured)
        );
        // Another observer's isolated provider is not this one's.
        let (_, other) = IsolatedProvider::new().build(|builder| builder);
        assert_eq!(
            owned_client_posture(&other, Some(&token), true, false),
            Err(LangfuseError::ProviderIsolationUnavailable)
        );
        assert_eq!(
            posture(&ProviderBinding::NoProvider, true, false),
            Ok(Posture::AsConfigured)
        );
        assert_eq!(
            posture(&ProviderBinding::Shared, true, false),
            Err(LangfuseError::ProviderIsolationUnavailable)
        );
        assert_eq!(
            posture(&ProviderBinding::Shared, false, false),
            Ok(Posture::AsConfigured)
        );
        assert_eq!(
            posture(&ProviderBinding::Shared, true, true),
            Ok(Posture::AsConfigured)
        );
        assert_eq!(
            posture(&ProviderBinding::Unknown, true, false),
            Ok(Posture::Suppressed)
        );
        assert_eq!(
            posture(&ProviderBinding::Unknown, false, false),
            Ok(Posture::AsConfigured)
        );
        assert_eq!(
            posture(&ProviderBinding::Unknown, true, true),
            Ok(Posture::AsConfigured)
        );
    }

    #[test]
    fn each_arm_logs_its_stable_name_once() {
        let cases: [(ProviderBinding, bool, bool, &[&str]); 5] = [
            (ProviderBinding::Unknown, true, false, &[PAYLOAD_SUPPRESSED]),
            (ProviderBinding::Shared, true, true, &[SHARED_PROVIDER_ACCEPTED]),
            (
                ProviderBinding::Shared,
                false,
                false,
                &[SHARED_PROVIDER_NO_PAYLOAD],
            ),
            (ProviderBinding::Shared, true, false, &[]),
            (ProviderBinding::NoProvider, true, false, &[]),
        ];
        for (binding, live, accept, names) in cases {
            let capture = oa_testkit::TracingCapture::default();
            tracing::dispatcher::with_default(&capture.dispatch(), || {
                let _ = posture(&binding, live, accept);
            });
            let records = capture.all();
            let got: Vec<&str> = records.iter().map(|record| record.name.as_str()).collect();
            assert!(records.iter().all(|record| record.target == "openarmature"));
            let want = if names == [SHARED_PROVIDER_NO_PAYLOAD] {
                tracing::Level::INFO
            } else {
                tracing::Level::WARN
            };
            assert!(records.iter().all(|record| record.level == want), "{records:?}");
            assert_eq!(got, names, "{binding:?} live={live} accept={accept}");
        }
    }
}
