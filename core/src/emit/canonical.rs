//! Canonical JSON and the manifest digest.
//!
//! Canonical JSON here is: object keys sorted by their UTF-8 bytes, no whitespace,
//! strings escaped as `serde_json` escapes them, integers in decimal. The digest is
//! `sha256:<lowercase hex>` of the canonical JSON of a manifest with `digest` left out.
//!
//! [`to_canonical_bytes`] writes any `Serialize` value straight to canonical bytes
//! (objects are buffered per level and sorted), without building a `serde_json::Value`
//! tree: a large mesh's manifests are digested in one pass.

use super::manifest::{Instance, Manifest};
use serde::ser::{self, Impossible, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt;

/// `value` as canonical JSON text.
pub fn canonical_json(value: &Value) -> String {
    String::from_utf8(to_canonical_bytes(value).expect("a JSON value always serialises"))
        .expect("JSON is UTF-8")
}

/// The digest of `manifest`: SHA-256 over the canonical JSON of the manifest without its
/// `digest` field, written `sha256:<hex>`. The `digest` the manifest holds is ignored.
pub fn digest_of(manifest: &Manifest) -> String {
    // The canonical bytes are only hashed: each thread keeps its two buffers from one
    // manifest to the next instead of growing fresh ones (a large mesh's node writes
    // megabytes).
    thread_local! {
        static BUFFERS: std::cell::RefCell<Buffers> = std::cell::RefCell::default();
    }
    let hash = BUFFERS.with_borrow_mut(|b| {
        b.out.clear();
        WithoutDigest(manifest)
            .serialize(Canonical {
                b: &mut *b,
                pretty: None,
                depth: 0,
            })
            .expect("a manifest always serialises");
        Sha256::digest(&b.out)
    });
    written_digest(&hash)
}

/// `sha256:<hex>` over the canonical JSON of `value` (the label a Compose service carries,
/// LANGUAGE.md §14.7); an error where `value` has no JSON.
pub fn digest_of_value<T: Serialize + ?Sized>(value: &T) -> Result<String, Error> {
    Ok(written_digest(&Sha256::digest(to_canonical_bytes(value)?)))
}

/// `sha256:<lowercase hex>` of a SHA-256 hash.
fn written_digest(hash: &[u8]) -> String {
    let mut hex = String::with_capacity(DIGEST_LEN);
    hex.push_str("sha256:");
    for byte in hash {
        hex.push(char::from_digit(u32::from(byte >> 4), 16).expect("a nibble"));
        hex.push(char::from_digit(u32::from(byte & 0xf), 16).expect("a nibble"));
    }
    hex
}

/// The length of a written digest: `sha256:` and 64 hex digits.
const DIGEST_LEN: usize = 7 + 64;

/// Appends `manifest` to `pretty` as `serde_json`'s pretty printer writes it with its
/// digest in place of the one it holds (which is ignored), and returns that digest, from
/// one walk of the manifest: each field's canonical JSON is written beside its pretty
/// JSON, and the digest, whose length is fixed, is written into the place kept for it
/// once the canonical bytes are hashed. The bytes are `serde_json::to_writer_pretty`'s
/// of the manifest with [`digest_of`] filled in (a test holds the two together).
///
/// A build writes its manifests through a [`ManifestWriter`] instead, instance by
/// instance as they are built; this is the same writer given a whole manifest.
pub fn write_pretty_with_digest(manifest: &Manifest, pretty: &mut Vec<u8>) -> String {
    let mut writer = ManifestWriter::new();
    for instance in &manifest.instances {
        writer.instance(instance);
    }
    let mut tail = Vec::new();
    let digest = writer.finish(manifest, pretty, &mut tail);
    pretty.extend_from_slice(writer.instances());
    pretty.extend_from_slice(&tail);
    digest
}

/// A file written middle first: a manifest's instances are written as they are built,
/// and what comes before them (the head, which holds the digest of them all) only once
/// they are. A build stages the middle aside as it comes (`target::FileSink::put_parts`),
/// so no node's instances are ever held in memory together.
pub trait PartsFile {
    /// Appends `bytes` to the middle.
    fn middle(&mut self, bytes: &[u8]);
    /// Ends the file: it is `head`, the middle, then `tail`.
    fn end(self: Box<Self>, head: &[u8], tail: &[u8]);
}

/// One node's manifest written as [`write_pretty_with_digest`] writes it, one instance
/// at a time: each instance's pretty JSON is appended to the instances' bytes and its
/// canonical JSON hashed at once (`instances` is the first key in canonical order), so
/// neither the node's instances nor their canonical bytes are ever held together. The
/// rest of the manifest, which reads every instance (the `nodes` table, `retired`), is
/// given to [`ManifestWriter::finish`]; the file is then the head it writes, the
/// instances' bytes ([`ManifestWriter::instances`]) and the tail, in that order.
///
/// A writer made with [`ManifestWriter::to`] passes the instances' bytes on to a
/// [`PartsFile`] a part at a time instead of keeping them, and [`ManifestWriter::end`]
/// gives the file its head and tail.
pub struct ManifestWriter<'f> {
    hasher: Sha256,
    /// The instances' pretty JSON, each an element of the top-level `instances` array
    /// (two levels in), without the brackets: all of it, or, with `file`, what was not
    /// yet passed on.
    body: Vec<u8>,
    count: usize,
    file: Option<Box<dyn PartsFile + 'f>>,
}

/// How many of the instances' bytes a writer to a file gathers before passing them on:
/// a few dozen instances, so the file is written in large parts and the writer never
/// holds more than this and one instance.
const PART: usize = 256 * 1024;

thread_local! {
    /// The instances' bytes of the last writer of this thread, cleared: a build writes
    /// every node's into one buffer per thread, grown once.
    static BODY: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
    /// The canonical bytes of one instance (or of the manifest's other fields), hashed
    /// and cleared before the next.
    static WRITING: std::cell::RefCell<Buffers> = std::cell::RefCell::default();
}

impl Default for ManifestWriter<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'f> ManifestWriter<'f> {
    /// A writer that keeps the instances' bytes ([`ManifestWriter::instances`]).
    pub fn new() -> Self {
        let mut body = BODY.take();
        body.clear();
        let mut hasher = Sha256::new();
        hasher.update(b"{\"instances\":[");
        ManifestWriter {
            hasher,
            body,
            count: 0,
            file: None,
        }
    }

    /// A writer that passes the instances' bytes on to `file` as they are written; the
    /// file is ended by [`ManifestWriter::end`].
    pub fn to(file: Box<dyn PartsFile + 'f>) -> Self {
        let mut writer = Self::new();
        writer.file = Some(file);
        writer
    }

    /// Writes the manifest's next instance.
    pub fn instance(&mut self, instance: &Instance) {
        WRITING.with_borrow_mut(|b| {
            b.out.clear();
            pretty_item(&mut self.body, self.count == 0, 2);
            instance
                .serialize(Canonical {
                    b: &mut *b,
                    pretty: Some(&mut self.body),
                    depth: 2,
                })
                .expect("a manifest always serialises");
            if self.count > 0 {
                self.hasher.update(b",");
            }
            self.hasher.update(&b.out);
        });
        self.count += 1;
        if let Some(file) = self.file.as_deref_mut()
            && self.body.len() >= PART
        {
            file.middle(&self.body);
            self.body.clear();
        }
    }

    /// The pretty JSON of the instances written so far, between the head and the tail
    /// [`ManifestWriter::finish`] writes (of a writer made with [`ManifestWriter::new`]:
    /// one made with [`ManifestWriter::to`] passed them on).
    pub fn instances(&self) -> &[u8] {
        debug_assert!(self.file.is_none(), "the instances went to the file");
        &self.body
    }

    /// Ends the file of a writer made with [`ManifestWriter::to`]: the rest of the
    /// instances, then the head and the tail [`ManifestWriter::finish`] writes of
    /// `manifest`. Returns the digest.
    pub fn end(mut self, manifest: &Manifest) -> String {
        let mut file = self
            .file
            .take()
            .expect("a writer to a file (`ManifestWriter::to`)");
        if !self.body.is_empty() {
            file.middle(&self.body);
        }
        let (mut head, mut tail) = (Vec::new(), Vec::new());
        let digest = self.finish(manifest, &mut head, &mut tail);
        file.end(&head, &tail);
        digest
    }

    /// Appends to `head` what the file holds before the instances (`{`, `mesh`, `node`,
    /// `digest`, `nodes` and the opening of `instances`) and to `tail` what it holds
    /// after them, from `manifest`'s fields but its instances (which are the ones
    /// written, not `manifest.instances`) and its digest (ignored); returns the digest,
    /// written into `head`.
    pub fn finish(
        &mut self,
        manifest: &Manifest,
        head: &mut Vec<u8>,
        tail: &mut Vec<u8>,
    ) -> String {
        /// Writes field `key` of the top-level object, the `k`th, pretty, and `value`'s
        /// canonical JSON at the end of `out`, returning the field with the range of its
        /// canonical bytes.
        fn field<T: Serialize + ?Sized>(
            k: usize,
            key: &'static str,
            value: &T,
            b: &mut Buffers,
            pretty: &mut Vec<u8>,
        ) -> (&'static str, std::ops::Range<usize>) {
            pretty_item(pretty, k == 0, 1);
            write_str(pretty, key);
            pretty.extend_from_slice(b": ");
            let at = b.out.len();
            value
                .serialize(Canonical {
                    b: &mut *b,
                    pretty: Some(pretty),
                    depth: 1,
                })
                .expect("a manifest always serialises");
            (key, at..b.out.len())
        }
        let m = manifest;
        WRITING.with_borrow_mut(|b| {
            b.out.clear();
            head.push(b'{');
            let mesh = field(0, "mesh", &m.mesh, b, head);
            let node = field(1, "node", &m.node, b, head);
            // The digest's place, filled in once the canonical bytes are hashed.
            pretty_item(head, false, 1);
            head.extend_from_slice(b"\"digest\": \"");
            let digest_at = head.len();
            head.extend_from_slice(&[b'0'; DIGEST_LEN]);
            head.push(b'"');
            let nodes = field(3, "nodes", &m.nodes, b, head);
            pretty_item(head, false, 1);
            head.extend_from_slice(b"\"instances\": [");
            pretty_close(tail, self.count == 0, 2, b']');
            let left_out = field(5, "left_out", &m.left_out, b, tail);
            let retired = field(6, "retired", &m.retired, b, tail);
            pretty_close(tail, false, 1, b'}');
            tail.push(b'\n');
            // The canonical JSON of the manifest without its digest: the instances, then
            // the other fields in key order (no key needs escaping).
            let hasher = &mut self.hasher;
            hasher.update(b"]");
            for (key, range) in [left_out, mesh, node, nodes, retired] {
                hasher.update(b",\"");
                hasher.update(key.as_bytes());
                hasher.update(b"\":");
                hasher.update(&b.out[range]);
            }
            hasher.update(b"}");
            let digest = written_digest(&std::mem::take(hasher).finalize());
            head[digest_at..digest_at + DIGEST_LEN].copy_from_slice(digest.as_bytes());
            digest
        })
    }
}

impl Drop for ManifestWriter<'_> {
    fn drop(&mut self) {
        // The buffer goes back for the thread's next writer (the larger one, if another
        // writer of this thread gave one back meanwhile).
        let body = std::mem::take(&mut self.body);
        let other = BODY.take();
        BODY.set(if other.capacity() > body.capacity() {
            other
        } else {
            body
        });
    }
}

/// A manifest serialised without its `digest` field.
struct WithoutDigest<'a>(&'a Manifest);

impl Serialize for WithoutDigest<'_> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeStruct;
        let m = self.0;
        // In canonical order already, so the largest object is never moved to sort it.
        let mut st = s.serialize_struct("Manifest", 6)?;
        st.serialize_field("instances", &m.instances)?;
        st.serialize_field("left_out", &m.left_out)?;
        st.serialize_field("mesh", &m.mesh)?;
        st.serialize_field("node", &m.node)?;
        st.serialize_field("nodes", &m.nodes)?;
        st.serialize_field("retired", &m.retired)?;
        st.end()
    }
}

/// Any serialisable value as canonical JSON bytes.
pub fn to_canonical_bytes<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    let mut b = Buffers::default();
    value.serialize(Canonical {
        b: &mut b,
        pretty: None,
        depth: 0,
    })?;
    Ok(b.out)
}

/// Why a value has no canonical JSON (a map key that is not text, a float).
#[derive(Debug)]
pub struct Error(pub(crate) String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// Writes `s` as a JSON string, escaped as `serde_json` escapes it (a quote, a backslash
/// and the control characters; nothing else). Returns whether anything was escaped.
fn write_str(out: &mut Vec<u8>, s: &str) -> bool {
    // Most text of a manifest needs no escape: copied whole, without the formatter. The
    // test reads every byte without stopping early, which the compiler does many at once.
    if !s.bytes().fold(false, |any, b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    }) {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        return false;
    }
    serde_json::to_writer(&mut *out, s).expect("writing to a Vec never fails");
    true
}

/// The buffers of one walk: the canonical bytes, the room an object's entries are moved
/// aside into to sort them (an object ends only after its children have, so one serves
/// all), and the entries of every object being written, innermost last.
#[derive(Default)]
struct Buffers {
    out: Vec<u8>,
    scratch: Vec<u8>,
    entries: Vec<Entry>,
}

/// An object's entry: its key, and the range of its `"key":value` in `out`.
struct Entry {
    key: Key,
    start: usize,
    end: usize,
}

/// An entry's key, as it sorts (by its UTF-8 bytes): a field's name, a map key's text
/// where it lies in `out` (between its quotes: it needed no escape), or a map key's text
/// kept aside (it did).
enum Key {
    Field(&'static str),
    At(usize, usize),
    Text(String),
}

/// The order of two entries' keys, by their UTF-8 bytes. Most keys of an object differ
/// in their first byte: that decides without comparing the rest.
fn key_order(a: &Entry, b: &Entry, out: &[u8]) -> std::cmp::Ordering {
    let (a, b) = (a.key.bytes(out), b.key.bytes(out));
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

impl Key {
    fn bytes<'b>(&'b self, out: &'b [u8]) -> &'b [u8] {
        match self {
            Key::Field(k) => k.as_bytes(),
            Key::At(from, to) => &out[*from..*to],
            Key::Text(k) => k.as_bytes(),
        }
    }
}

/// The serializer: writes one value to the end of `out`. Every object of the value is
/// written in place, each entry's key and value in the order they come; when it ends,
/// if its keys were not already in order, its entries are moved aside into `scratch`
/// and written back sorted.
///
/// With `pretty`, the same walk also writes the value there as `serde_json`'s pretty
/// printer does (two spaces a level, `": "` after a key, entries in the order they
/// come), its value `depth` levels in: a build writes each manifest and the canonical
/// JSON of its digest in one pass, each string escaped once.
///
/// Hand-written because no derive gives this: the field order the manifest is written
/// in (its public shape) is not the sorted order its digest is taken over, and both come
/// from one walk. Every `Serialize` of the manifest types is derived.
struct Canonical<'a> {
    b: &'a mut Buffers,
    pretty: Option<&'a mut Vec<u8>>,
    depth: usize,
}

/// An array being written; `depth` is its elements'.
struct Seq<'a> {
    b: &'a mut Buffers,
    pretty: Option<&'a mut Vec<u8>>,
    depth: usize,
    first: bool,
}

/// An object being written: where its first entry starts in `out` (after its `{`), where
/// its entries start in `b.entries`, and the key and start of the entry whose value comes
/// next; `depth` is its entries'.
struct Object<'a> {
    b: &'a mut Buffers,
    pretty: Option<&'a mut Vec<u8>>,
    depth: usize,
    start: usize,
    base: usize,
    key: Option<(Key, usize)>,
}

/// Starts a pretty element or entry at `depth`: after `[`/`{` for the first, after a
/// comma otherwise, on a line of its own.
fn pretty_item(pretty: &mut Vec<u8>, first: bool, depth: usize) {
    if !first {
        pretty.push(b',');
    }
    new_line(pretty, depth);
}

/// Ends a pretty array or object whose items were at `depth`: on a line of its own when
/// it holds any, right after its opening bracket when it holds none.
fn pretty_close(pretty: &mut Vec<u8>, empty: bool, depth: usize, bracket: u8) {
    if !empty {
        new_line(pretty, depth - 1);
    }
    pretty.push(bracket);
}

/// A line break and `depth` levels of two spaces: one copy for the usual depths (a
/// manifest's pretty JSON starts a line for each of its millions of items).
fn new_line(pretty: &mut Vec<u8>, depth: usize) {
    const LINE: &[u8; 65] = &{
        let mut line = [b' '; 65];
        line[0] = b'\n';
        line
    };
    let mut n = depth * 2;
    if n < LINE.len() {
        pretty.extend_from_slice(&LINE[..1 + n]);
        return;
    }
    pretty.push(b'\n');
    while n > 0 {
        let k = n.min(LINE.len() - 1);
        pretty.extend_from_slice(&LINE[1..1 + k]);
        n -= k;
    }
}

impl Canonical<'_> {
    /// Writes a scalar with `write` into the canonical bytes, and the same bytes into
    /// the pretty ones (a scalar is written alike in both).
    fn scalar(self, write: impl FnOnce(&mut Vec<u8>)) -> Result<(), Error> {
        let at = self.b.out.len();
        write(&mut self.b.out);
        if let Some(pretty) = self.pretty {
            pretty.extend_from_slice(&self.b.out[at..]);
        }
        Ok(())
    }
}

impl<'a> Object<'a> {
    fn open(b: &'a mut Buffers, mut pretty: Option<&'a mut Vec<u8>>, depth: usize) -> Self {
        b.out.push(b'{');
        if let Some(p) = pretty.as_deref_mut() {
            p.push(b'{');
        }
        Object {
            start: b.out.len(),
            base: b.entries.len(),
            b,
            pretty,
            depth: depth + 1,
            key: None,
        }
    }

    /// Starts an entry: the comma before it, its key written by `write` (which says what
    /// the key is), and its colon.
    fn key(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Result<Key, Error>) -> Result<(), Error> {
        let first = self.b.entries.len() == self.base;
        if !first {
            self.b.out.push(b',');
        }
        let start = self.b.out.len();
        let key = write(&mut self.b.out)?;
        if let Some(pretty) = self.pretty.as_deref_mut() {
            pretty_item(pretty, first, self.depth);
            pretty.extend_from_slice(&self.b.out[start..]);
            pretty.extend_from_slice(b": ");
        }
        self.b.out.push(b':');
        self.key = Some((key, start));
        Ok(())
    }

    /// Writes the value of the entry [`Object::key`] started.
    fn value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let (key, start) = self
            .key
            .take()
            .ok_or_else(|| Error("a map value without its key".into()))?;
        value.serialize(Canonical {
            b: &mut *self.b,
            pretty: self.pretty.as_deref_mut(),
            depth: self.depth,
        })?;
        let end = self.b.out.len();
        self.b.entries.push(Entry { key, start, end });
        Ok(())
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.key(|out| {
            write_str(out, key);
            Ok(Key::Field(key))
        })?;
        self.value(value)
    }

    fn finish(self) -> Result<(), Error> {
        let Buffers {
            out,
            scratch,
            entries,
        } = &mut *self.b;
        let mine = &mut entries[self.base..];
        let sorted = mine.is_sorted_by(|a, b| key_order(a, b, out).is_le());
        if !sorted {
            mine.sort_unstable_by(|a, b| key_order(a, b, out));
            scratch.clear();
            scratch.extend_from_slice(&out[self.start..]);
            out.truncate(self.start);
            for (i, e) in mine.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(&scratch[e.start - self.start..e.end - self.start]);
            }
        }
        let empty = mine.is_empty();
        entries.truncate(self.base);
        out.push(b'}');
        if let Some(pretty) = self.pretty {
            pretty_close(pretty, empty, self.depth, b'}');
        }
        Ok(())
    }
}

impl<'a> ser::Serializer for Canonical<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.scalar(|out| out.extend_from_slice(if v { b"true" } else { b"false" }))
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<(), Error> {
        use std::io::Write as _;
        self.scalar(|out| write!(out, "{v}").expect("writing to a Vec never fails"))
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        use std::io::Write as _;
        self.scalar(|out| write!(out, "{v}").expect("writing to a Vec never fails"))
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(Error("a manifest holds no floating-point number".into()))
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(Error("a manifest holds no floating-point number".into()))
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.scalar(|out| {
            write_str(out, v.encode_utf8(&mut [0; 4]));
        })
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.scalar(|out| {
            write_str(out, v);
        })
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), Error> {
        use ser::SerializeSeq;
        let mut seq = self.serialize_seq(Some(v.len()))?;
        for b in v {
            seq.serialize_element(b)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.scalar(|out| out.extend_from_slice(b"null"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.serialize_none()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        let mut obj = Object::open(self.b, self.pretty, self.depth);
        obj.field(variant, value)?;
        obj.finish()
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Seq<'a>, Error> {
        self.b.out.push(b'[');
        let mut pretty = self.pretty;
        if let Some(p) = pretty.as_deref_mut() {
            p.push(b'[');
        }
        Ok(Seq {
            b: self.b,
            pretty,
            depth: self.depth + 1,
            first: true,
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Seq<'a>, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(Error("a manifest holds no tuple variant".into()))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Object<'a>, Error> {
        Ok(Object::open(self.b, self.pretty, self.depth))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Object<'a>, Error> {
        Ok(Object::open(self.b, self.pretty, self.depth))
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(Error("a manifest holds no struct variant".into()))
    }
}

impl ser::SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if !self.first {
            self.b.out.push(b',');
        }
        if let Some(pretty) = self.pretty.as_deref_mut() {
            pretty_item(pretty, self.first, self.depth);
        }
        self.first = false;
        value.serialize(Canonical {
            b: &mut *self.b,
            pretty: self.pretty.as_deref_mut(),
            depth: self.depth,
        })
    }
    fn end(self) -> Result<(), Error> {
        self.b.out.push(b']');
        if let Some(pretty) = self.pretty {
            pretty_close(pretty, self.first, self.depth, b']');
        }
        Ok(())
    }
}

impl ser::SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<(), Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key(|out| {
            let at = out.len();
            if key.serialize(KeyWriter(&mut *out))? {
                // Escaped: sorted by its text, read back (a rare key).
                let text: String = serde_json::from_slice(&out[at..])
                    .map_err(|_| Error("a JSON object key is text".into()))?;
                Ok(Key::Text(text))
            } else {
                // Sorted where it lies, between its quotes.
                Ok(Key::At(at + 1, out.len() - 1))
            }
        })
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.value(value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

/// Writes a map's key where JSON writes it as a string (a string, a char, a unit variant,
/// through newtypes), saying whether it was escaped; any other key is an error, as in
/// `serde_json`'s text-only keys.
struct KeyWriter<'a>(&'a mut Vec<u8>);

fn not_text() -> Error {
    Error("a JSON object key is text".into())
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = bool;
    type Error = Error;
    type SerializeSeq = Impossible<bool, Error>;
    type SerializeTuple = Impossible<bool, Error>;
    type SerializeTupleStruct = Impossible<bool, Error>;
    type SerializeTupleVariant = Impossible<bool, Error>;
    type SerializeMap = Impossible<bool, Error>;
    type SerializeStruct = Impossible<bool, Error>;
    type SerializeStructVariant = Impossible<bool, Error>;

    fn serialize_str(self, s: &str) -> Result<bool, Error> {
        Ok(write_str(self.0, s))
    }
    fn serialize_char(self, c: char) -> Result<bool, Error> {
        Ok(write_str(self.0, c.encode_utf8(&mut [0; 4])))
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<bool, Error> {
        Ok(write_str(self.0, variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<bool, Error> {
        value.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_i8(self, _: i8) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_i16(self, _: i16) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_i32(self, _: i32) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_i64(self, _: i64) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_u8(self, _: u8) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_u16(self, _: u16) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_u32(self, _: u32) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_u64(self, _: u64) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_f32(self, _: f32) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_f64(self, _: f64) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_none(self) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_unit(self) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<bool, Error> {
        Err(not_text())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(not_text())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(not_text())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(not_text())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(not_text())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(not_text())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(not_text())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(not_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_text_is_a_key() {
        use std::collections::BTreeMap;
        let refused = |e: Result<Vec<u8>, Error>| match e {
            Err(e) => assert_eq!(e.to_string(), "a JSON object key is text"),
            Ok(bytes) => panic!("written: {}", String::from_utf8_lossy(&bytes)),
        };
        refused(to_canonical_bytes(&BTreeMap::from([(1, 2)])));
        refused(to_canonical_bytes(&BTreeMap::from([(true, 2)])));
        refused(to_canonical_bytes(&BTreeMap::from([(Some("k"), 2)])));
        refused(to_canonical_bytes(&BTreeMap::from([(vec!["k"], 2)])));
        #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
        enum Key {
            B,
            A,
        }
        #[derive(serde::Serialize, PartialEq, Eq, PartialOrd, Ord)]
        struct Wrapped(char);
        let written = to_canonical_bytes(&BTreeMap::from([(Key::B, 1), (Key::A, 2)])).unwrap();
        assert_eq!(written, br#"{"A":2,"B":1}"#);
        let written = to_canonical_bytes(&BTreeMap::from([(Wrapped('z'), 1)])).unwrap();
        assert_eq!(written, br#"{"z":1}"#);
    }

    /// `value`'s pretty and canonical JSON from one walk.
    fn both(value: &Value) -> (String, String) {
        let (mut b, mut pretty) = (Buffers::default(), Vec::new());
        value
            .serialize(Canonical {
                b: &mut b,
                pretty: Some(&mut pretty),
                depth: 0,
            })
            .unwrap();
        (
            String::from_utf8(pretty).unwrap(),
            String::from_utf8(b.out).unwrap(),
        )
    }

    #[test]
    fn one_walk_writes_serde_jsons_pretty_text_beside_the_canonical_one() {
        let values = [
            json!({"b": 1, "a": {"d": [1, "x\n\"y\"", -3, [], {}, [[]], {"k": {}}], "c": null}, "A": true, "é": "\u{1}\u{2028}"}),
            json!([]),
            json!({}),
            json!([{"z": [false, {"y": [1, 2]}]}, "s"]),
            json!("text"),
            json!(42),
            json!(null),
        ];
        for v in values {
            let (pretty, canonical) = both(&v);
            assert_eq!(pretty, serde_json::to_string_pretty(&v).unwrap(), "{v}");
            assert_eq!(canonical, canonical_json(&v), "{v}");
        }
    }

    /// A line's indentation is one copy up to 32 levels and a loop past them: both write
    /// what `serde_json` writes, at every depth around the change.
    #[test]
    fn a_value_nested_past_one_copy_of_indentation_is_serde_jsons_pretty_text() {
        for depth in [30, 31, 32, 33, 34, 65, 70] {
            let mut v = json!({"leaf": [1, "x"], "empty": [], "none": {}});
            for level in 0..depth {
                v = if level % 2 == 0 {
                    json!([v, level])
                } else {
                    json!({"b": v, "a": level})
                };
            }
            let (pretty, canonical) = both(&v);
            assert_eq!(pretty, serde_json::to_string_pretty(&v).unwrap(), "{depth}");
            assert_eq!(canonical, canonical_json(&v), "{depth}");
        }
    }

    #[test]
    fn sorts_keys_and_drops_whitespace() {
        let v = json!({"b": 1, "a": {"d": [1, "x\n", -3], "c": null}, "A": true, "é": "\u{1}"});
        assert_eq!(
            canonical_json(&v),
            r#"{"A":true,"a":{"c":null,"d":[1,"x\n",-3]},"b":1,"é":"\u0001"}"#
        );
    }

    #[test]
    fn a_manifest_serialises_as_its_json_value_does() {
        let m = Manifest {
            mesh: "lab".into(),
            node: "alpha".into(),
            digest: "sha256:x".into(),
            nodes: Default::default(),
            instances: vec![],
            left_out: vec![crate::emit::LeftOut {
                instance: "web".into(),
                module: "web".into(),
                diagnostics: vec![crate::emit::LeftOutDiagnostic {
                    code: "E0501".into(),
                    message: "`title` \"quoted\"".into(),
                }],
            }],
            retired: vec![],
        };
        let mut value = serde_json::to_value(&m).unwrap();
        value.as_object_mut().unwrap().shift_remove("digest");
        let direct = to_canonical_bytes(&WithoutDigest(&m)).unwrap();
        let via_value = to_canonical_bytes(&value).unwrap();
        assert_eq!(direct, via_value);
    }

    /// `value` with every object's keys in byte order, rebuilt independently of the
    /// canonical writer.
    fn keys_sorted(value: Value) -> Value {
        match value {
            Value::Object(map) => {
                let sorted: std::collections::BTreeMap<String, Value> =
                    map.into_iter().map(|(k, v)| (k, keys_sorted(v))).collect();
                Value::Object(sorted.into_iter().collect())
            }
            Value::Array(items) => Value::Array(items.into_iter().map(keys_sorted).collect()),
            other => other,
        }
    }

    /// A file written middle first, as a build's file sink sees it: each part of the
    /// middle as it comes (after the head, once ended), and the whole file once ended.
    #[derive(Clone, Default)]
    struct Recorded(std::rc::Rc<std::cell::RefCell<Written>>);

    /// The parts of the middle as they came (the head first, once ended), and the file.
    type Written = (Vec<Vec<u8>>, Vec<u8>);

    impl PartsFile for Recorded {
        fn middle(&mut self, bytes: &[u8]) {
            let (parts, ended) = &mut *self.0.borrow_mut();
            assert!(ended.is_empty(), "a middle after the end");
            parts.push(bytes.to_vec());
        }

        fn end(self: Box<Self>, head: &[u8], tail: &[u8]) {
            let (parts, ended) = &mut *self.0.borrow_mut();
            parts.insert(0, head.to_vec());
            *ended = [parts.concat(), tail.to_vec()].concat();
        }
    }

    /// A build writes each manifest instance by instance, never holding its instances
    /// together: the head, the instances and the tail are the bytes `serde_json`'s pretty
    /// printer writes of the whole manifest with its digest filled in, and the digest is
    /// SHA-256 over its canonical JSON sorted another way (nested objects out of key order:
    /// an instance, a container, a sealed env value).
    #[test]
    fn a_manifest_written_instance_by_instance_is_its_pretty_json() {
        use crate::base::fx_hash::FxIndexMap;
        use crate::emit::{EnvValue, NodeAddress, Retired, SealedEnv, fixture};
        for count in [0, 1, 3, 1000] {
            let mut container = fixture::container();
            container
                .env
                .insert("ZED".into(), EnvValue::Text("x\"y\n".into()));
            container.env.insert(
                "ALPHA".into(),
                EnvValue::Sealed(SealedEnv {
                    sealed: fixture::sealed("alpha_web/token"),
                    exposed: Some("the client reads it".into()),
                }),
            );
            container.secrets = vec![fixture::secret(
                "/run/secrets/db",
                Some(fixture::sealed("alpha_web/db")),
            )];
            let mut m = fixture::manifest(FxIndexMap::default(), container);
            let one = m.instances[0].clone();
            m.instances = (0..count)
                .map(|k| crate::emit::Instance {
                    instance: format!("web{k}"),
                    ..one.clone()
                })
                .collect();
            m.nodes.insert(
                "alpha".into(),
                NodeAddress {
                    private_name: "alpha.lab".into(),
                },
            );
            m.retired = vec![Retired {
                instance: "old".into(),
                container: "old".into(),
                path: Some("/etc/é".into()),
            }];
            let mut writer = ManifestWriter::new();
            for instance in &m.instances {
                writer.instance(instance);
            }
            let (mut head, mut tail) = (Vec::new(), Vec::new());
            let digest = writer.finish(&m, &mut head, &mut tail);
            let written = [head.as_slice(), writer.instances(), tail.as_slice()].concat();
            drop(writer);

            // The same written to a file middle first: the same bytes and digest, the
            // instances passed on in parts as they come.
            let file = Recorded::default();
            let mut writer = ManifestWriter::to(Box::new(file.clone()));
            for instance in &m.instances {
                writer.instance(instance);
            }
            assert_eq!(writer.end(&m), digest, "{count}");
            let (parts, ended) = file.0.take();
            assert_eq!(ended, written, "{count}");
            if count > 0 {
                assert_eq!(parts[0], head, "{count}");
            }
            if count > 300 {
                assert!(
                    parts.len() > 3,
                    "{count}: passed on in parts ({})",
                    parts.len()
                );
                assert!(parts[1..parts.len() - 1].iter().all(|p| p.len() < 2 * PART));
            }

            let mut value = serde_json::to_value(&m).unwrap();
            value.as_object_mut().unwrap().shift_remove("digest");
            let canonical = serde_json::to_vec(&keys_sorted(value)).unwrap();
            assert_eq!(
                digest,
                written_digest(&Sha256::digest(&canonical)),
                "{count}"
            );
            assert_eq!(digest, digest_of(&m), "{count}");
            let mut filled = m.clone();
            filled.digest = digest;
            let mut want = serde_json::to_vec_pretty(&filled).unwrap();
            want.push(b'\n');
            assert_eq!(
                String::from_utf8(written).unwrap(),
                String::from_utf8(want).unwrap(),
                "{count}"
            );
        }
    }

    #[test]
    fn digest_ignores_the_digest_field() {
        let mut m = Manifest {
            mesh: "lab".into(),
            node: "alpha".into(),
            digest: String::new(),
            nodes: Default::default(),
            instances: vec![],
            left_out: vec![],
            retired: vec![],
        };
        let d = digest_of(&m);
        assert!(d.starts_with("sha256:") && d.len() == 7 + 64, "{d}");
        m.digest = "sha256:whatever".into();
        assert_eq!(digest_of(&m), d);
    }
}
