//! The guard between the client and the protocol layer: every frame the client sends is
//! read here first. A frame that is not a JSON-RPC 2.0 message (no `Content-Length`,
//! bytes that are not JSON, invalid UTF-8, a lone surrogate, `null`, a batch, a
//! `"jsonrpc"` other than `"2.0"`) is answered with the JSON-RPC error it deserves
//! (-32700 parse error, -32600 invalid request) and the server goes on reading; before,
//! the protocol layer ended the server silently on the first one. Only well-formed
//! messages reach the server. No message text is ever quoted in an answer or a log.

use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest header line read; a longer one is cut there.
const MAX_HEADER_LINE: u64 = 8 * 1024;
/// The largest body accepted: a whole workspace of 32 MiB files fits many times.
pub const MAX_BODY: usize = 256 * 1024 * 1024;

/// What one frame turned out to be.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A well-formed message: its body.
    Message(Vec<u8>),
    /// A malformed frame: the error answer to send back.
    Refused(Value),
    /// The input ended.
    End,
}

/// A JSON-RPC error answer.
fn error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Judges one body: the answer when it is not a JSON-RPC 2.0 message.
pub fn judge(body: &[u8]) -> Option<Value> {
    let Ok(text) = std::str::from_utf8(body) else {
        return Some(error(
            Value::Null,
            -32700,
            "parse error: the message is not UTF-8",
        ));
    };
    // serde_json refuses a lone surrogate (`"\ud800"`) as it parses.
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => {
            return Some(error(
                Value::Null,
                -32700,
                "parse error: the message is not JSON",
            ));
        }
    };
    let Value::Object(obj) = &value else {
        return Some(error(
            Value::Null,
            -32600,
            "invalid request: a message is a JSON object (batches are not supported)",
        ));
    };
    let id = match obj.get("id") {
        None => Value::Null,
        Some(id @ (Value::Number(_) | Value::String(_) | Value::Null)) => id.clone(),
        Some(_) => {
            return Some(error(
                Value::Null,
                -32600,
                "invalid request: `id` is a number or a string",
            ));
        }
    };
    if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Some(error(
            id,
            -32600,
            "invalid request: `jsonrpc` must be \"2.0\"",
        ));
    }
    if obj.get("method").is_some_and(|m| !m.is_string()) {
        return Some(error(id, -32600, "invalid request: `method` is a string"));
    }
    if obj
        .get("params")
        .is_some_and(|p| !p.is_object() && !p.is_array())
    {
        return Some(error(
            id,
            -32600,
            "invalid request: `params` is an object or an array",
        ));
    }
    if !obj.contains_key("method") && !obj.contains_key("result") && !obj.contains_key("error") {
        return Some(error(
            id,
            -32600,
            "invalid request: neither a request, a notification nor a response",
        ));
    }
    None
}

/// Reads the next frame from `input`.
pub async fn next_frame<R: AsyncRead + Unpin>(input: &mut BufReader<R>) -> std::io::Result<Frame> {
    loop {
        let mut length: Option<usize> = None;
        let mut bad_length = false;
        let mut lines = 0usize;
        loop {
            let mut line = Vec::new();
            let n = (&mut *input)
                .take(MAX_HEADER_LINE)
                .read_until(b'\n', &mut line)
                .await?;
            if n == 0 {
                return Ok(Frame::End);
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                break;
            }
            lines += 1;
            // Found anywhere in the line, so a frame glued to the tail of a broken one
            // is still read.
            let lower = text.to_ascii_lowercase();
            if let Some(at) = lower.find("content-length:") {
                let value = text[at + "content-length:".len()..].trim();
                match value.parse::<usize>() {
                    Ok(n) if n <= MAX_BODY => length = Some(n),
                    _ => bad_length = true,
                }
            }
        }
        let Some(len) = length else {
            if lines == 0 {
                continue; // a blank line between frames
            }
            let why = match bad_length {
                true => "parse error: the Content-Length header is not a size meshc-lsp accepts",
                false => "parse error: a frame without a Content-Length header",
            };
            return Ok(Frame::Refused(error(Value::Null, -32700, why)));
        };
        let mut body = vec![0u8; len];
        input.read_exact(&mut body).await?;
        return Ok(match judge(&body) {
            None => Frame::Message(body),
            Some(answer) => Frame::Refused(answer),
        });
    }
}

/// Writes one framed message.
async fn write_frame<W: AsyncWrite + Unpin>(out: &mut W, body: &[u8]) -> std::io::Result<()> {
    out.write_all(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes())
        .await?;
    out.write_all(body).await?;
    out.flush().await
}

/// Reads the client's frames from `input`, passes the well-formed ones to `server` and
/// answers the others on `out`. Returns when the input ends.
pub async fn guard_input<R, S, W>(input: R, mut server: S, out: Arc<Mutex<W>>)
where
    R: AsyncRead + Unpin,
    S: AsyncWrite + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut input = BufReader::new(input);
    loop {
        match next_frame(&mut input).await {
            Ok(Frame::Message(body)) => {
                if write_frame(&mut server, &body).await.is_err() {
                    return;
                }
            }
            Ok(Frame::Refused(answer)) => {
                let body = serde_json::to_vec(&answer).expect("JSON");
                let mut out = out.lock().await;
                let _ = write_frame(&mut *out, &body).await;
            }
            Ok(Frame::End) | Err(_) => return,
        }
    }
}

/// Copies the server's frames to `out`, whole, so they never interleave with the
/// guard's answers.
pub async fn forward_output<R, W>(from: R, out: Arc<Mutex<W>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from = BufReader::new(from);
    while let Ok(Some(body)) = forward_one(&mut from).await {
        let mut out = out.lock().await;
        if write_frame(&mut *out, &body).await.is_err() {
            return;
        }
    }
}

/// One frame of the server's own output (always well-formed): its body, `None` at the
/// end.
async fn forward_one<R: AsyncRead + Unpin>(
    from: &mut BufReader<R>,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut length = None;
    loop {
        let mut line = Vec::new();
        if from.read_until(b'\n', &mut line).await? == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            if length.is_some() {
                break;
            }
            continue;
        }
        if let Some(v) = text
            .to_ascii_lowercase()
            .strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
        {
            length = Some(v);
        }
    }
    let mut body = vec![0u8; length.unwrap_or(0)];
    from.read_exact(&mut body).await?;
    Ok(Some(body))
}
