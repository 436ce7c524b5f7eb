//! The real `meshc-lsp` binary over its stdio: malformed frames are answered with their
//! JSON-RPC error and the server goes on; a deep workspace is opened on the server's own
//! worker threads (2 MiB stacks) without overflowing them.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

struct Lsp {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
}

impl Lsp {
    fn start() -> Lsp {
        let mut child = Command::new(env!("CARGO_BIN_EXE_meshc-lsp"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("meshc-lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            loop {
                let mut len = None;
                loop {
                    let mut line = String::new();
                    if r.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        len = v.trim().parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; len.expect("every frame has a Content-Length")];
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body).expect("the server writes JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        Lsp {
            child,
            stdin,
            messages,
        }
    }

    fn raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    fn frame(&mut self, body: &[u8]) {
        let mut b = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        b.extend_from_slice(body);
        self.raw(&b);
    }

    fn send(&mut self, v: Value) {
        self.frame(&serde_json::to_vec(&v).unwrap());
    }

    /// The next message that `pick` accepts (others are skipped), within a minute.
    fn wait(&mut self, what: &str, pick: impl Fn(&Value) -> bool) -> Value {
        loop {
            match self.messages.recv_timeout(Duration::from_secs(300)) {
                Ok(v) if pick(&v) => return v,
                Ok(_) => {}
                Err(_) => panic!("no {what} from meshc-lsp"),
            }
        }
    }

    fn initialize(&mut self, root: Option<&std::path::Path>) {
        let root_uri = root.map(|p| format!("file://{}", p.display()));
        self.send(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {}, "rootUri": root_uri}}));
        self.wait("initialize answer", |v| v["id"] == 1);
        self.send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    }

    /// `shutdown` answered, then `exit`: the server ends with status 0.
    fn finish(mut self) {
        self.send(json!({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}));
        let v = self.wait("shutdown answer", |v| v["id"] == 99);
        assert!(v.get("error").is_none(), "{v}");
        self.send(json!({"jsonrpc": "2.0", "method": "exit"}));
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

fn is_error(v: &Value) -> bool {
    v.get("error").is_some() && v.get("method").is_none()
}

#[test]
fn malformed_frames_are_answered_and_the_server_goes_on() {
    let mut lsp = Lsp::start();
    lsp.initialize(None);
    let cases: Vec<(&str, Vec<u8>, i64, Value)> = vec![
        (
            "invalid JSON",
            b"{\"jsonrpc\": \"2.0\", ".to_vec(),
            -32700,
            Value::Null,
        ),
        ("null", b"null".to_vec(), -32600, Value::Null),
        ("an empty batch", b"[]".to_vec(), -32600, Value::Null),
        (
            "jsonrpc 1.0",
            br#"{"jsonrpc":"1.0","id":7,"method":"textDocument/hover"}"#.to_vec(),
            -32600,
            json!(7),
        ),
        (
            "invalid UTF-8",
            b"{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"x\xff\xfe\"}".to_vec(),
            -32700,
            Value::Null,
        ),
        (
            "a lone surrogate",
            br#"{"jsonrpc":"2.0","id":9,"method":"x","params":{"s":"\ud800"}}"#.to_vec(),
            -32700,
            Value::Null,
        ),
        (
            "an object id",
            br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#.to_vec(),
            -32600,
            Value::Null,
        ),
    ];
    for (what, body, code, id) in cases {
        lsp.frame(&body);
        let v = lsp.wait(what, is_error);
        assert_eq!(v["error"]["code"], code, "{what}: {v}");
        assert_eq!(v["id"], id, "{what}: {v}");
    }
    // A header block without Content-Length.
    lsp.raw(b"Content-Type: application/vscode-jsonrpc\r\n\r\n");
    let v = lsp.wait("an answer to a frame without Content-Length", is_error);
    assert_eq!(v["error"]["code"], -32700, "{v}");
    // Still answering: a real request after all of them.
    lsp.send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol",
        "params": {"query": ""}}),
    );
    let v = lsp.wait("an answer to a request after the bad frames", |v| {
        v["id"] == 2
    });
    assert!(v.get("error").is_none(), "{v}");
    lsp.finish();
}

#[test]
fn a_workspace_with_a_chain_of_50000_narrowings_opens() {
    let dir = tempfile::tempdir().unwrap();
    let n = 50_000;
    let mut m = String::from("module chain {\n");
    for i in 0..n - 1 {
        m.push_str(&format!(
            "  requires p{i}: host port {{ container = p{}.container }}\n",
            i + 1
        ));
    }
    m.push_str(&format!(
        "  requires p{}: host port {{ container = 8080 }}\n}}\n",
        n - 1
    ));
    std::fs::write(dir.path().join("chain.mesh"), m).unwrap();
    std::fs::write(
        dir.path().join("m.mesh"),
        "mesh m {\n  node a { private_name = \"a.internal\"  ports = 10000..65000 }\n  assign chain to a\n}\n",
    )
    .unwrap();
    let mut lsp = Lsp::start();
    lsp.initialize(Some(dir.path()));
    let v = lsp.wait("the workspace checked", |v| {
        v["method"] == "window/logMessage"
            && v["params"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("read and checked"))
    });
    assert!(
        v["params"]["message"]
            .as_str()
            .unwrap()
            .contains("2 .mesh files"),
        "{v}"
    );
    lsp.finish();
}
