//! Building a [`LangfuseObserver`]: the §8.4.1 trace hooks and the §6 shared-provider opt-out are construction
//! knobs, because whether a payload channel is live decides, before anything is emitted, what an observer over a
//! client oa built may do (proposals 0114, 0116, 0117).

use std::sync::Arc;

use serde_json::Value;

use super::client::{LangfuseClient, LangfuseError};
use super::config::LangfuseConfig;
use super::http::{HttpLangfuseClient, HttpLimits, LangfuseCredentials};
use super::isolation::{
    IsolatedProvider, IsolationToken, Posture, owned_client_posture, supplied_client_check,
};
use super::observer::{LangfuseObserver, TraceHook};

/// Builds a [`LangfuseObserver`]; start with [`LangfuseObserver::builder`].
///
/// ```
/// use std::sync::Arc;
/// use oa_observe::langfuse::{IsolatedProvider, LangfuseObserver, ProviderBinding};
/// use oa_observe::{LangfuseClient, LangfuseConfig, LangfuseCredentials, LangfuseError, LangfuseRecorder};
///
/// /// A client that emits through a provider shared with the application (the global one, say).
/// #[derive(Debug, Default)]
/// struct OnTheGlobalProvider(LangfuseRecorder);
///
/// impl LangfuseClient for OnTheGlobalProvider {
///     fn upsert_trace(&self, trace: &oa_observe::langfuse::TraceRecord) { self.0.upsert_trace(trace) }
///     fn record_observation(&self, o: &oa_observe::langfuse::ObservationRecord) { self.0.record_observation(o) }
///     fn binding(&self) -> ProviderBinding { ProviderBinding::Shared }
/// }
///
/// let credentials = LangfuseCredentials::new("pk-lf-1", "sk-lf-1", "http://127.0.0.1:3000");
/// let payload = LangfuseConfig::builder().disable_provider_payload(false).build()?;
/// let shared = |_: &LangfuseCredentials, _: IsolatedProvider| {
///     Ok(Arc::new(OnTheGlobalProvider::default()) as Arc<dyn LangfuseClient>)
/// };
/// // Payload on a shared provider: refused before anything is emitted (observability §6) ...
/// let error = LangfuseObserver::builder(payload)
///     .from_credentials_with(credentials.clone(), shared)
///     .unwrap_err();
/// assert_eq!(error.category(), "langfuse_provider_isolation_unavailable");
/// // ... unless the caller accepts the shared provider.
/// let observer = LangfuseObserver::builder(payload)
///     .accept_shared_provider(true)
///     .from_credentials_with(credentials, shared)?;
/// # let _ = observer;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct LangfuseObserverBuilder {
    config: LangfuseConfig,
    trace_input: Option<TraceHook>,
    trace_output: Option<TraceHook>,
    accept_shared_provider: bool,
}

impl std::fmt::Debug for LangfuseObserverBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LangfuseObserverBuilder")
            .field("config", &self.config)
            .field("trace_input_hook", &self.trace_input.is_some())
            .field("trace_output_hook", &self.trace_output.is_some())
            .field("accept_shared_provider", &self.accept_shared_provider)
            .finish()
    }
}

impl LangfuseObserverBuilder {
    pub(super) fn new(config: LangfuseConfig) -> Self {
        Self {
            config,
            trace_input: None,
            trace_output: None,
            accept_shared_provider: false,
        }
    }

    /// §8.4.1's `trace_input_from_state`: called once per invocation with the initial state; a `Some` becomes the
    /// trace's input (capped), whatever `disable_state_payload` says; `None` falls through. A payload channel.
    pub fn trace_input(mut self, hook: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static) -> Self {
        self.trace_input = Some(Arc::new(hook));
        self
    }

    /// §8.4.1's `trace_output_from_state`: the same, with the final state (or the state at the failure).
    pub fn trace_output(mut self, hook: impl Fn(&Value) -> Option<Value> + Send + Sync + 'static) -> Self {
        self.trace_output = Some(Arc::new(hook));
        self
    }

    /// §6's one opt-out (0116): a client oa builds may emit payloads through a provider shared with the
    /// application; construction then warns (`openarmature.langfuse.shared_provider_accepted`) instead of failing
    /// or suppressing. Default false.
    pub fn accept_shared_provider(mut self, accept: bool) -> Self {
        self.accept_shared_provider = accept;
        self
    }

    /// §8.9 mode (a): the caller's client, never changed (the caller owns whatever provider it is bound to). A
    /// client that reports a shared provider while a payload channel is live earns one warning
    /// (`openarmature.langfuse.supplied_client_shared_provider`, §6's MAY).
    pub fn client(self, client: Arc<dyn LangfuseClient>) -> LangfuseObserver {
        supplied_client_check(&client.binding(), self.live());
        LangfuseObserver::assemble(client, self.config, self.trace_input, self.trace_output)
    }

    /// §8.9 mode (b) over HTTP: an [`HttpLangfuseClient`] with the default limits, which emits through no
    /// OpenTelemetry provider, so it is isolated by construction.
    ///
    /// # Errors
    ///
    /// [`LangfuseError`] when a key is blank, the host is unusable or the HTTP client cannot be built.
    pub fn from_credentials(
        self,
        credentials: LangfuseCredentials,
    ) -> Result<LangfuseObserver, LangfuseError> {
        let client = HttpLangfuseClient::new(credentials, HttpLimits::default())?;
        self.owned(Arc::new(client), None)
    }

    /// §8.9 mode (b) with a client of the caller's making: `build` receives the credentials and an
    /// [`IsolatedProvider`], a tracer provider no one else holds, for a client that emits its observations as
    /// OpenTelemetry spans (as Langfuse's own SDKs do). The client's [`LangfuseClient::binding`] then decides
    /// (observability §6, 0116, 0117), before anything is emitted: on that isolated provider (or none), the observer
    /// runs as configured; on another provider with a payload channel live (provider or state payload on, or a
    /// trace hook), construction fails with [`LangfuseError::ProviderIsolationUnavailable`] unless
    /// [`accept_shared_provider`](Self::accept_shared_provider) says otherwise; where the client cannot say, every
    /// payload channel is closed with one warning (`openarmature.langfuse.payload_suppressed`).
    ///
    /// # Errors
    ///
    /// [`LangfuseError::MissingCredential`] for a blank key, whatever `build` returns, and
    /// [`LangfuseError::ProviderIsolationUnavailable`].
    pub fn from_credentials_with<F>(
        self,
        credentials: LangfuseCredentials,
        build: F,
    ) -> Result<LangfuseObserver, LangfuseError>
    where
        F: FnOnce(&LangfuseCredentials, IsolatedProvider) -> Result<Arc<dyn LangfuseClient>, LangfuseError>,
    {
        credentials.check()?;
        let isolated = IsolatedProvider::new();
        let ours = isolated.token();
        let client = build(&credentials, isolated)?;
        self.owned(client, Some(&ours))
    }

    /// The §6 decision for a client oa built (`ours`: the provider it isolated for it, if any), applied.
    fn owned(
        mut self,
        client: Arc<dyn LangfuseClient>,
        ours: Option<&IsolationToken>,
    ) -> Result<LangfuseObserver, LangfuseError> {
        let posture =
            owned_client_posture(&client.binding(), ours, self.live(), self.accept_shared_provider)?;
        if posture == Posture::Suppressed {
            self.config.disable_provider_payload = true;
            self.config.disable_state_payload = true;
            self.trace_input = None;
            self.trace_output = None;
        }
        Ok(LangfuseObserver::assemble(
            client,
            self.config,
            self.trace_input,
            self.trace_output,
        ))
    }

    /// Whether a payload channel knowable at construction is live (0117): the provider payload (which carries a
    /// failed observation's error message, 0118), the state payload, or a trace hook (which emits whatever the
    /// state switch says).
    fn live(&self) -> bool {
        !self.config.disable_provider_payload
            || !self.config.disable_state_payload
            || self.trace_input.is_some()
            || self.trace_output.is_some()
    }
}
