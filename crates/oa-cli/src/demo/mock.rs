//! The demo's model: an OpenAI-compatible Chat Completions endpoint on 127.0.0.1 (oa-testkit's server) that answers
//! a request carrying `response_format` with the next scripted JSON answer, and a request without one with prose, as
//! an unbound model would. No key, no network.

use std::sync::{Mutex, PoisonError};

use oa_testkit::{Reply, Request, Responder, Server};
use serde_json::{Value, json};

/// The prose an unbound model writes to the canary question when nothing constrains it.
pub(super) const CANARY_PROSE: &str = "Two plus two is four.";
/// The prose an unbound model writes to anything else.
pub(super) const PROSE: &str = "The meetup is on 3 December in Hall B; Ada speaks and Linus hosts.";

/// Starts the mock, on a runtime thread of its own, with the JSON answers it gives, in order, to schema-carrying
/// requests (the last repeats). It serves until dropped.
pub(super) fn start(answers: Vec<String>) -> std::io::Result<Server> {
    let n_answered = Mutex::new(0_usize);
    Server::start(Responder::function(move |request| {
        reply(request, &answers, &n_answered)
    }))
}

fn reply(request: &Request, answers: &[String], n_answered: &Mutex<usize>) -> Reply {
    if request.method == "GET" {
        return Reply::json(200, json!({"object": "list", "data": [{"id": "demo-model"}]}));
    }
    let body = request.json().unwrap_or(Value::Null);
    let content = if body.get("response_format").is_some() {
        let mut next = n_answered.lock().unwrap_or_else(PoisonError::into_inner);
        let answer = answers.get(*next).or(answers.last()).cloned().unwrap_or_default();
        *next += 1;
        answer
    } else if body.to_string().to_lowercase().contains("two plus two") {
        CANARY_PROSE.to_owned()
    } else {
        PROSE.to_owned()
    };
    Reply::json(
        200,
        json!({
            "id": "chatcmpl-demo",
            "object": "chat.completion",
            "model": "demo-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 60, "total_tokens": 180}
        }),
    )
}
