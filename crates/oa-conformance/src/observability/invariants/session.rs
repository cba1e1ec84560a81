//! The invariants of the session fixture (084): each session-bound invocation its own Langfuse trace, every trace
//! of a session carrying its id as `trace.sessionId`.

use serde_json::Value;

use super::Context;
use crate::node::Node;

impl Context<'_> {
    /// The session ids the case binds its invocations to: the case's own, or each `invocations:` entry's.
    fn supplied_sessions(&self) -> Vec<&str> {
        match self.body.get("invocations").and_then(Node::as_seq) {
            Some(entries) => entries
                .iter()
                .filter_map(|entry| entry.get("session_id").and_then(Node::as_str))
                .collect(),
            None => self
                .body
                .get("session_id")
                .and_then(Node::as_str)
                .into_iter()
                .collect(),
        }
    }

    /// Every recorded Langfuse trace.
    fn all_traces(&self) -> &[Value] {
        self.run.langfuse.as_deref().unwrap_or_default()
    }
}

/// Invariants whose value is `true`.
pub(super) fn holds(name: &str, c: &Context<'_>) -> Option<bool> {
    let traces = c.all_traces();
    let sessions = c.supplied_sessions();
    Some(match name {
        "trace_session_id_equals_supplied_session_id" => match (traces, sessions.as_slice()) {
            ([trace], [session]) => trace["sessionId"] == *session,
            _ => false,
        },
        "each_invocation_distinct_trace_id" => {
            traces.len() >= 2
                && traces.len() == c.invocations.len()
                && traces
                    .iter()
                    .enumerate()
                    .all(|(idx, trace)| traces[..idx].iter().all(|other| other["id"] != trace["id"]))
        }
        "traces_group_into_one_langfuse_session" => {
            traces.len() >= 2
                && sessions.len() == traces.len()
                && traces.iter().zip(&sessions).all(|(trace, session)| {
                    trace["sessionId"] == *session && trace["sessionId"] == traces[0]["sessionId"]
                })
        }
        _ => return None,
    })
}

/// Invariants with a value: `all_traces_share_session_id: <id>`.
pub(super) fn holds_valued(name: &str, value: &Node, c: &Context<'_>) -> Option<bool> {
    Some(match name {
        "all_traces_share_session_id" => {
            let traces = c.all_traces();
            value.as_str().is_some_and(|session| {
                traces.len() == c.invocations.len()
                    && !traces.is_empty()
                    && traces.iter().all(|trace| trace["sessionId"] == session)
            })
        }
        _ => return None,
    })
}
