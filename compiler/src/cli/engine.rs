//! A small client of the Docker Engine API over its unix socket: HTTP/1.1 `GET` requests
//! with `Connection: close`, plain or chunked bodies, JSON answers, and the tar stream of
//! the archive endpoint for one file.
//!
//! Why by hand: the API is the engine's public interface (the `docker` CLI is a client of
//! it and may not be installed on a node), the few requests a survey makes need no HTTP
//! stack, and a socket from the standard library adds no dependency to the compiler.

use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

/// The largest answer read from the engine; a file above it is reported by digest only.
const MAX_BODY: usize = 256 * 1024 * 1024;

/// An engine reached through its API socket.
pub struct Engine {
    socket: PathBuf,
}

/// An answer of the engine.
pub struct Answer {
    pub status: u16,
    pub body: Vec<u8>,
}

impl Engine {
    /// The engine at `host` (`unix:///var/run/docker.sock`); `None` for any other scheme.
    pub fn at(host: &str) -> Option<Engine> {
        let path = host.strip_prefix("unix://")?;
        (!path.is_empty()).then(|| Engine {
            socket: PathBuf::from(path),
        })
    }

    /// The socket's path, for messages.
    pub fn socket(&self) -> String {
        self.socket.display().to_string()
    }

    /// `GET path`: the status and the body (chunked transfer decoded).
    pub fn get(&self, path: &str) -> Result<Answer, String> {
        let mut stream = UnixStream::connect(&self.socket).map_err(|e| {
            format!(
                "no container engine answers at `{}`: {}",
                self.socket.display(),
                super::workspace::plain(&e)
            )
        })?;
        let timeout = Some(Duration::from_secs(60));
        let _ = stream.set_read_timeout(timeout);
        let _ = stream.set_write_timeout(timeout);
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: docker\r\nUser-Agent: meshc\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(request.as_bytes()).map_err(|e| {
            format!(
                "the engine did not take a request: {}",
                super::workspace::plain(&e)
            )
        })?;
        let mut raw = Vec::new();
        stream
            .take(MAX_BODY as u64 + 64 * 1024)
            .read_to_end(&mut raw)
            .map_err(|e| {
                format!(
                    "the engine's answer was cut: {}",
                    super::workspace::plain(&e)
                )
            })?;
        parse_response(&raw)
    }

    /// `GET path` answered with JSON (status 200).
    pub fn json(&self, path: &str) -> Result<serde_json::Value, String> {
        let a = self.get(path)?;
        if a.status != 200 {
            return Err(format!("the engine answered {} to `GET {path}`", a.status));
        }
        serde_json::from_slice(&a.body)
            .map_err(|_| format!("the engine's answer to `GET {path}` is not JSON"))
    }
}

fn parse_response(raw: &[u8]) -> Result<Answer, String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("the engine's answer has no end of headers")?;
    let head = String::from_utf8_lossy(&raw[..end]);
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("the engine's answer has no status")?;
    let chunked = lines.any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = &raw[end + 4..];
    let body = if chunked {
        dechunk(body)?
    } else {
        body.to_vec()
    };
    Ok(Answer { status, body })
}

fn dechunk(mut body: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    loop {
        let line_end = body
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or("a chunk of the engine's answer is cut")?;
        let size_text = String::from_utf8_lossy(&body[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| "a chunk size of the engine's answer is not a number")?;
        body = &body[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if body.len() < size {
            return Err("a chunk of the engine's answer is cut".into());
        }
        out.extend_from_slice(&body[..size]);
        body = body.get(size + 2..).unwrap_or(&[]);
    }
}

/// The first regular file of a tar stream: (mode, uid, gid, bytes). Pax and GNU long-name
/// headers before it are skipped.
pub fn first_file_of_tar(tar: &[u8]) -> Option<(u32, u32, u32, Vec<u8>)> {
    let mut at = 0;
    while at + 512 <= tar.len() {
        let h = &tar[at..at + 512];
        if h.iter().all(|&b| b == 0) {
            return None;
        }
        let octal = |r: std::ops::Range<usize>| -> Option<u64> {
            let s = String::from_utf8_lossy(&h[r]);
            let s = s.trim_matches(|c: char| c == '\0' || c == ' ');
            if s.is_empty() {
                Some(0)
            } else {
                u64::from_str_radix(s, 8).ok()
            }
        };
        let size = octal(124..136)? as usize;
        let kind = h[156];
        let data_start = at + 512;
        let data_end = data_start.checked_add(size)?;
        if data_end > tar.len() {
            return None;
        }
        if kind == b'0' || kind == 0 {
            return Some((
                (octal(100..108)? & 0o7777) as u32,
                octal(108..116)? as u32,
                octal(116..124)? as u32,
                tar[data_start..data_end].to_vec(),
            ));
        }
        at = data_start + size.div_ceil(512) * 512;
    }
    None
}

/// Percent-encodes a query value or path segment.
pub fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/' | b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_plain_and_chunked_answers() {
        let a = parse_response(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}").unwrap();
        assert_eq!((a.status, a.body.as_slice()), (200, &b"{}"[..]));
        let a = parse_response(
            b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
        )
        .unwrap();
        assert_eq!((a.status, a.body.as_slice()), (404, &b"abcde"[..]));
        assert!(parse_response(b"garbage").is_err());
    }

    #[test]
    fn reads_the_first_file_of_a_tar() {
        let mut h = [0u8; 512];
        h[..7].copy_from_slice(b"app.ini");
        h[100..107].copy_from_slice(b"0000644");
        h[108..115].copy_from_slice(b"0001750");
        h[116..123].copy_from_slice(b"0001750");
        h[124..135].copy_from_slice(b"00000000005");
        h[156] = b'0';
        let mut tar = h.to_vec();
        let mut data = b"hello".to_vec();
        data.resize(512, 0);
        tar.extend(data);
        tar.extend([0u8; 1024]);
        assert_eq!(
            first_file_of_tar(&tar),
            Some((0o644, 1000, 1000, b"hello".to_vec()))
        );
        assert_eq!(first_file_of_tar(&[0u8; 1024]), None);
    }
}
