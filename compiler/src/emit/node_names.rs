//! The nodes a manifest's instances name: the text of every `"node"` key whose value is a
//! string, at any depth of the JSON the instances serialise to (a provider's, a
//! consumer's, a sealed reference's `node`). The manifest's `nodes` table lists them.
//!
//! The instances are walked through their `Serialize` implementations, as JSON would see
//! them, without building the JSON: a large mesh's manifests are tens of megabytes, and a
//! `serde_json::Value` of each was most of what building its `nodes` table cost.

use serde::ser::{self, Serialize};
use std::collections::BTreeSet;

/// Why a value has no JSON: the canonical writer's error, for the same JSON.
pub use super::canonical::Error;
use super::canonical::Text;

/// Adds to `out` every string value of a `"node"` key in the JSON `value` serialises to.
/// Fails, leaving `out` partly filled, where that JSON could not be made (a map key that
/// is not text).
pub fn nodes_named<T: Serialize + ?Sized>(
    value: &T,
    out: &mut BTreeSet<String>,
) -> Result<(), Error> {
    value.serialize(Walk { out })
}

/// Walks a value, collecting the names.
struct Walk<'o> {
    out: &'o mut BTreeSet<String>,
}

/// The value of an entry whose key is `key` (a field, a map's key, a variant's name): its
/// text when the key is `node` and the value is a string, else walked as any other.
fn entry<T: Serialize + ?Sized>(
    key: Option<&str>,
    value: &T,
    out: &mut BTreeSet<String>,
) -> Result<(), Error> {
    if key == Some("node") {
        let text = Text {
            key: false,
            numbers: false,
        };
        if let Ok(Some(name)) = value.serialize(text) {
            out.insert(name);
            return Ok(());
        }
    }
    value.serialize(Walk { out })
}

impl<'o> ser::Serializer for Walk<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = MapWalk<'o>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_char(self, _: char) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_str(self, _: &str) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Error> {
        Ok(())
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
        // JSON writes `{"variant": value}`.
        entry(Some(variant), value, self.out)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapWalk<'o>, Error> {
        Ok(MapWalk {
            out: self.out,
            key: None,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, Error> {
        Ok(self)
    }
}

/// The elements of a sequence or a tuple and the fields of a tuple struct or variant:
/// each walked; the fields of a struct or a struct variant: each an [`entry`] under its
/// name.
macro_rules! walk_each {
    ($($trait:ident :: $method:ident),+ $(,)?) => {$(
        impl ser::$trait for Walk<'_> {
            type Ok = ();
            type Error = Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                value.serialize(Walk { out: self.out })
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        }
    )+};
    ($($trait:ident),+ ; fields) => {$(
        impl ser::$trait for Walk<'_> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                entry(Some(key), value, self.out)
            }
            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        }
    )+};
}

walk_each!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);
walk_each!(SerializeStruct, SerializeStructVariant; fields);

/// A map's entries: each key's text, then its value.
struct MapWalk<'o> {
    out: &'o mut BTreeSet<String>,
    key: Option<String>,
}

impl ser::SerializeMap for MapWalk<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        // As JSON writes a key: a number or a boolean is its text.
        let text = Text {
            key: true,
            numbers: true,
        };
        match key.serialize(text)? {
            Some(text) => {
                self.key = Some(text);
                Ok(())
            }
            None => Err(Error("a map key that is not text".into())),
        }
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        entry(self.key.take().as_deref(), value, self.out)
    }
    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;
    use serde_json::{Value, json};

    /// The names as read from the JSON tree itself: what the walk must agree with.
    fn from_tree(json: &Value, out: &mut BTreeSet<String>) {
        match json {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("node", Value::String(n)) => {
                            out.insert(n.clone());
                        }
                        _ => from_tree(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| from_tree(v, out)),
            _ => {}
        }
    }

    fn both<T: Serialize>(value: &T) -> (BTreeSet<String>, BTreeSet<String>) {
        let mut walked = BTreeSet::new();
        nodes_named(value, &mut walked).unwrap();
        let mut tree = BTreeSet::new();
        from_tree(&serde_json::to_value(value).unwrap(), &mut tree);
        (walked, tree)
    }

    #[derive(Serialize)]
    #[serde(rename_all = "lowercase")]
    enum Where {
        Here,
        Node,
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Either {
        Ref { node: String, instance: String },
        Plain(String),
    }

    #[derive(Serialize)]
    struct Holder {
        node: Option<String>,
        by: Where,
        at: Vec<Either>,
        env: indexmap::IndexMap<String, Value>,
        nested: Option<Box<Holder>>,
    }

    #[test]
    fn the_walk_reads_what_the_json_tree_reads() {
        let mut env = indexmap::IndexMap::new();
        env.insert("node".to_string(), json!("from-env"));
        env.insert(
            "other".to_string(),
            json!({"node": "deep", "list": [{"node": 3}]}),
        );
        let value = Holder {
            node: Some("alpha".into()),
            by: Where::Node,
            at: vec![
                Either::Ref {
                    node: "beta".into(),
                    instance: "pg".into(),
                },
                Either::Plain("node".into()),
            ],
            env,
            nested: Some(Box::new(Holder {
                node: None,
                by: Where::Here,
                at: Vec::new(),
                env: indexmap::IndexMap::new(),
                nested: None,
            })),
        };
        let (walked, tree) = both(&value);
        assert_eq!(walked, tree);
        let want: BTreeSet<String> = ["alpha", "beta", "deep", "from-env"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(walked, want);
    }

    #[test]
    fn a_unit_variant_under_node_is_its_name() {
        #[derive(Serialize)]
        struct S {
            node: Where,
        }
        let (walked, tree) = both(&S { node: Where::Here });
        assert_eq!(walked, tree);
        assert!(walked.contains("here"));
    }

    #[test]
    fn a_number_key_is_text_as_in_json() {
        let mut m = std::collections::BTreeMap::new();
        m.insert(1, serde_json::json!({"node": "gamma"}));
        let (walked, tree) = both(&m);
        assert_eq!(walked, tree);
        assert!(walked.contains("gamma"));
    }

    #[test]
    fn a_map_key_json_cannot_write_fails() {
        let mut m = std::collections::BTreeMap::new();
        m.insert(vec![1], "x");
        assert!(nodes_named(&m, &mut BTreeSet::new()).is_err());
        assert!(serde_json::to_value(&m).is_err());
        // Nor an optional key, even one that holds text.
        let mut m = std::collections::BTreeMap::new();
        m.insert(Some("k"), serde_json::json!({"node": "delta"}));
        assert!(nodes_named(&m, &mut BTreeSet::new()).is_err());
        assert!(serde_json::to_value(&m).is_err());
    }
}
