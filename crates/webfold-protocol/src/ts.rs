//! TypeScript declarations of the WebSocket frames, made from their JSON
//! Schema, so the extension compiles against the daemon's own types rather
//! than a hand copy.
//!
//! Only the schema shapes schemars writes for these types are understood
//! (objects, arrays and tuples, `$ref`, `const`, `enum`, `oneOf`/`anyOf`,
//! nullable types); anything else becomes `unknown`, which the extension's
//! compiler then makes it check.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The ambient namespace the extension reads the types from (its scripts
/// are classic scripts: no imports).
pub const NAMESPACE: &str = "WfProtocol";

/// The extension's `src/protocol.gen.d.ts`.
pub fn declarations() -> String {
    let schema = crate::ws::json_schema();
    let roots = [
        "extensionToDaemon",
        "daemonToExtension",
        "helloFrame",
        "extensionToHost",
        "hostToExtension",
    ];
    let mut defs: BTreeMap<String, Value> = BTreeMap::new();
    for root in roots {
        let s = &schema[root];
        if let Some(d) = s.get("$defs").and_then(Value::as_object) {
            defs.extend(d.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        let name = s["title"].as_str().unwrap_or(root).to_string();
        let mut own = s.clone();
        if let Some(o) = own.as_object_mut() {
            o.remove("$defs");
            o.remove("$schema");
            o.remove("title");
        }
        defs.insert(name, own);
    }
    let mut out = String::from(
        "// The chatter protocol's frames, generated from webfold-protocol's Rust\n\
         // types: do not edit. Regenerate with\n\
         // UPDATE_GOLDEN=1 cargo test -p webfold-protocol --test generated\n\n",
    );
    let _ = writeln!(out, "declare namespace {NAMESPACE} {{");
    for (name, def) in &defs {
        out.push('\n');
        declaration(&mut out, name, def);
    }
    out.push_str("}\n");
    out
}

fn declaration(out: &mut String, name: &str, def: &Value) {
    doc(out, "  ", def);
    let is_object = def["type"] == "object" && def.get("properties").is_some();
    if is_object {
        let _ = writeln!(out, "  export interface {name} {{");
        members(out, "    ", def);
        out.push_str("  }\n");
    } else {
        let _ = writeln!(out, "  export type {name} = {};", expr(def, "  "));
    }
}

fn doc(out: &mut String, indent: &str, s: &Value) {
    let Some(d) = s.get("description").and_then(Value::as_str) else {
        return;
    };
    let d = d.replace("*/", "*\\/");
    let lines: Vec<&str> = d.lines().collect();
    if let [one] = lines.as_slice() {
        let _ = writeln!(out, "{indent}/** {one} */");
        return;
    }
    let _ = writeln!(out, "{indent}/**");
    for l in lines {
        let line = format!("{indent} * {l}");
        let _ = writeln!(out, "{}", line.trim_end());
    }
    let _ = writeln!(out, "{indent} */");
}

/// An object's properties, one per line; a property not required is
/// optional, and (as the daemon leaves out what is absent) never `null`.
fn members(out: &mut String, indent: &str, s: &Value) {
    let empty = Map::new();
    let props = s["properties"].as_object().unwrap_or(&empty);
    let required: Vec<&str> = s["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (key, p) in props {
        doc(out, indent, p);
        let optional = !required.contains(&key.as_str());
        let mut ts = union(p, indent);
        if optional && ts.len() > 1 {
            ts.retain(|t| t != "null");
        }
        let q = if optional { "?" } else { "" };
        let _ = writeln!(out, "{indent}{}{q}: {};", prop_name(key), ts.join(" | "));
    }
}

fn prop_name(key: &str) -> String {
    let ident = key.chars().enumerate().all(|(i, c)| {
        c == '_' || c == '$' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
    });
    if ident && !key.is_empty() {
        key.to_string()
    } else {
        Value::String(key.to_string()).to_string()
    }
}

fn expr(s: &Value, indent: &str) -> String {
    union(s, indent).join(" | ")
}

/// The members of the union a schema stands for (one when it is no union).
fn union(s: &Value, indent: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |t: String| {
        if !out.contains(&t) {
            out.push(t);
        }
    };
    let Some(o) = s.as_object() else {
        add("unknown".into());
        return out;
    };
    if let Some(r) = o.get("$ref").and_then(Value::as_str) {
        add(r.rsplit('/').next().unwrap_or(r).to_string());
    } else if let Some(c) = o.get("const") {
        add(c.to_string());
    } else if let Some(e) = o.get("enum").and_then(Value::as_array) {
        e.iter().for_each(|v| add(v.to_string()));
    } else if let Some(alts) = o.get("oneOf").or(o.get("anyOf")).and_then(Value::as_array) {
        alts.iter()
            .flat_map(|a| union(a, indent))
            .for_each(&mut add);
    } else {
        match o.get("type") {
            Some(Value::Array(types)) => types
                .iter()
                .filter_map(Value::as_str)
                .for_each(|t| add(of_type(t, o, indent))),
            Some(Value::String(t)) => add(of_type(t, o, indent)),
            _ => add("unknown".into()),
        }
    }
    out
}

fn of_type(t: &str, o: &Map<String, Value>, indent: &str) -> String {
    match t {
        "string" => "string".into(),
        "integer" | "number" => "number".into(),
        "boolean" => "boolean".into(),
        "null" => "null".into(),
        "array" => array(o, indent),
        "object" => object(o, indent),
        _ => "unknown".into(),
    }
}

fn array(o: &Map<String, Value>, indent: &str) -> String {
    if let Some(items) = o.get("prefixItems").and_then(Value::as_array) {
        let parts: Vec<String> = items.iter().map(|i| expr(i, indent)).collect();
        return format!("[{}]", parts.join(", "));
    }
    let item = o.get("items").map_or("unknown".into(), |i| expr(i, indent));
    let (min, max) = (o.get("minItems"), o.get("maxItems"));
    match (min.and_then(Value::as_u64), max.and_then(Value::as_u64)) {
        (Some(a), Some(b)) if a == b && b <= 8 => {
            format!("[{}]", vec![item; b as usize].join(", "))
        }
        _ if item.contains(' ') => format!("Array<{item}>"),
        _ => format!("{item}[]"),
    }
}

fn object(o: &Map<String, Value>, indent: &str) -> String {
    if o.contains_key("properties") {
        let inner = format!("{indent}  ");
        let mut out = String::from("{\n");
        members(&mut out, &inner, &Value::Object(o.clone()));
        let _ = write!(out, "{indent}}}");
        return out;
    }
    match o.get("additionalProperties") {
        Some(v) if v.is_object() => format!("Record<string, {}>", expr(v, indent)),
        _ => "Record<string, unknown>".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_become_their_typescript() {
        let s = json!({
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": ["a", "b"]},
                "maybe": {"type": ["string", "null"]},
                "nullable": {"type": ["integer", "null"]},
                "box": {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
                "list": {"type": "array", "items": {"$ref": "#/$defs/Thing"}},
                "map": {"type": "object", "additionalProperties": {"type": "string"}},
                "any": true,
                "two-words": {"anyOf": [{"$ref": "#/$defs/Thing"}, {"type": "null"}]}
            },
            "required": ["kind", "nullable", "box", "list", "map", "any"]
        });
        let mut out = String::new();
        members(&mut out, "", &s);
        for line in [
            "kind: \"a\" | \"b\";",
            "maybe?: string;",
            "nullable: number | null;",
            "box: [number, number];",
            "list: Thing[];",
            "map: Record<string, string>;",
            "any: unknown;",
            "\"two-words\"?: Thing;",
        ] {
            assert!(out.lines().any(|l| l == line), "{line} not in\n{out}");
        }
    }

    #[test]
    fn frames_are_unions_tagged_by_type() {
        let d = declarations();
        assert!(d.contains("export type ClientFrame = {"), "{d}");
        assert!(d.contains("type: \"set_context\";"));
        assert!(d.contains("payload: SetContext;"));
        assert!(d.contains("export interface DomCapture {"));
    }
}
