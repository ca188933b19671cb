//! What each schema construct becomes.

use serde_json::json;

use super::*;

/// The type of `schema` in a document whose schemas are `components`, and
/// every definition and note it needed.
fn map(components: Value, schema: Value) -> (String, Vec<String>, Vec<String>) {
    let doc = json!({"components": {"schemas": components}});
    let mut types = Types::new(&doc);
    let ty = types.rust_type(&schema, "Thing", "#/x").to_string();
    let defs = types.defs.iter().map(ToString::to_string).collect();
    (ty, defs, types.notes.0)
}

fn ty(schema: Value) -> String {
    let (ty, _, notes) = map(json!({}), schema);
    assert!(notes.is_empty(), "{notes:?}");
    ty
}

#[test]
fn primitives_and_arrays_map_to_std_types() {
    assert_eq!(ty(json!({"type": "string"})), ":: std :: string :: String");
    assert_eq!(ty(json!({"type": "integer"})), "i64");
    assert_eq!(ty(json!({"type": "number"})), "f64");
    assert_eq!(ty(json!({"type": "boolean"})), "bool");
    assert_eq!(
        ty(json!({"type": "array", "items": {"type": "integer"}})),
        ":: std :: vec :: Vec < i64 >"
    );
    assert_eq!(
        ty(json!({"type": ["string", "null"]})),
        ":: core :: option :: Option < :: std :: string :: String >"
    );
    assert_eq!(
        ty(json!({"type": "object", "additionalProperties": {"type": "boolean"}})),
        ":: std :: collections :: BTreeMap < :: std :: string :: String , bool >"
    );
    assert_eq!(ty(json!({})), ":: serde_json :: Value");
    assert_eq!(ty(json!(true)), ":: serde_json :: Value");
}

#[test]
fn objects_become_structs_with_json_names_and_optional_fields() {
    let (ty, defs, _) = map(
        json!({}),
        json!({"type": "object", "required": ["petId"],
               "properties": {"petId": {"type": "integer"}, "type": {"type": "string"}}}),
    );
    assert_eq!(ty, "Thing");
    let def = &defs[0];
    assert!(def.contains("pub struct Thing"), "{def}");
    assert!(
        def.contains("# [serde (rename = \"petId\")] pub pet_id : i64"),
        "{def}"
    );
    assert!(
        def.contains("pub r#type : :: core :: option :: Option < :: std :: string :: String >"),
        "{def}"
    );
}

#[test]
fn refs_name_one_shared_type_and_recursion_is_boxed() {
    let components = json!({
        "Node": {"type": "object", "properties": {
            "next": {"$ref": "#/components/schemas/Node"},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
        }}
    });
    let (ty, defs, _) = map(
        components,
        json!({"type": "array", "items": {"$ref": "#/components/schemas/Node"}}),
    );
    assert_eq!(ty, ":: std :: vec :: Vec < Node >");
    assert_eq!(defs.len(), 1, "{defs:?}");
    assert!(
        defs[0].contains("Option < :: std :: boxed :: Box < Node > >"),
        "{}",
        defs[0]
    );
}

#[test]
fn one_of_and_string_enums_become_enums() {
    let (_, defs, _) = map(
        json!({"Pet": {"type": "object", "properties": {}}}),
        json!({"oneOf": [{"$ref": "#/components/schemas/Pet"}, {"type": "string"}]}),
    );
    let def = defs.last().unwrap();
    assert!(def.contains("# [serde (untagged)] pub enum Thing"), "{def}");
    assert!(
        def.contains("Pet (Pet) , String (:: std :: string :: String)"),
        "{def}"
    );

    let (_, defs, _) = map(json!({}), json!({"enum": ["open", "merged", "not-sure"]}));
    assert!(
        defs[0].contains("# [serde (rename = \"not-sure\")] NotSure"),
        "{}",
        defs[0]
    );
}

#[test]
fn unsupported_schemas_are_values_with_a_note_and_a_dangling_ref_is_an_error() {
    let (ty, _, notes) = map(json!({}), json!({"not": {"type": "string"}}));
    assert_eq!(ty, ":: serde_json :: Value");
    assert_eq!(
        notes,
        ["openrpc: `#/x`: `not` is not supported; it is `serde_json::Value`"]
    );
    let (ty, _, notes) = map(json!({}), json!({"$ref": "other.json#/Pet"}));
    assert_eq!(ty, ":: serde_json :: Value");
    assert_eq!(notes.len(), 1);
    let (ty, _, notes) = map(
        json!({}),
        json!({"allOf": [{"type": "string"}, {"type": "integer"}]}),
    );
    assert_eq!(ty, ":: serde_json :: Value");
    assert_eq!(
        notes,
        [
            "openrpc: `#/x/allOf`: `allOf` of schemas that are not all objects is not supported; it is `serde_json::Value`"
        ]
    );
    let (_, _, notes) = map(json!({}), json!(42));
    assert_eq!(notes.len(), 1);

    let doc = json!({});
    let mut types = Types::new(&doc);
    types.rust_type(
        &json!({"$ref": "#/components/schemas/Gone"}),
        "T",
        "#/methods/0/result/schema",
    );
    assert_eq!(
        types.errors,
        [
            "`#/methods/0/result/schema`: `$ref` `#/components/schemas/Gone` points at nothing in this document"
        ]
    );
}

#[test]
fn integers_take_the_width_of_their_format_or_bounds() {
    assert_eq!(ty(json!({"type": "integer", "format": "uint64"})), "u64");
    assert_eq!(ty(json!({"type": "integer", "format": "int32"})), "i32");
    assert_eq!(ty(json!({"type": "integer", "format": "uint128"})), "u128");
    assert_eq!(
        ty(json!({"type": "integer", "minimum": 0, "maximum": 255})),
        "u8"
    );
    assert_eq!(
        ty(json!({"type": "integer", "minimum": 0, "maximum": 18446744073709551615u64})),
        "u64"
    );
    assert_eq!(ty(json!({"type": "integer", "minimum": 0})), "u64");
    assert_eq!(ty(json!({"type": "integer"})), "i64");
    let (ty, _, notes) = map(json!({}), json!({"type": "integer", "format": "uint256"}));
    assert_eq!(ty, ":: serde_json :: Value");
    assert_eq!(notes.len(), 1);
}

#[test]
fn open_objects_keep_other_members_in_a_flattened_map_and_all_of_is_merged() {
    let (_, defs, _) = map(
        json!({"Base": {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}}}),
        json!({"allOf": [{"$ref": "#/components/schemas/Base"},
                         {"properties": {"b": {"type": "integer"}}, "additionalProperties": {"type": "string"}}]}),
    );
    let def = defs.last().unwrap();
    assert!(def.contains("pub a : :: std :: string :: String"), "{def}");
    assert!(
        def.contains("pub b : :: core :: option :: Option < i64 >"),
        "{def}"
    );
    assert!(
        def.contains("# [serde (flatten)] pub extra : :: std :: collections :: BTreeMap < :: std :: string :: String , :: std :: string :: String >"),
        "{def}"
    );
    let (_, defs, _) = map(
        json!({}),
        json!({"properties": {"a": {}}, "additionalProperties": false}),
    );
    assert!(!defs[0].contains("flatten"), "{}", defs[0]);
    // A present `null` is kept apart from an absent member.
    assert!(
        defs[0].contains("deserialize_with = \"::typed_rpc::__private::present\""),
        "{}",
        defs[0]
    );
}

#[test]
fn a_recursive_array_is_a_newtype_not_a_cycle_of_aliases() {
    let (ty, defs, _) = map(
        json!({"Tree": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}},
               "Alias": {"$ref": "#/components/schemas/Tree"}}),
        json!({"$ref": "#/components/schemas/Alias"}),
    );
    assert_eq!(ty, "Alias");
    assert!(defs.iter().any(|d| d.contains("# [serde (transparent)] pub struct Tree (pub :: std :: vec :: Vec < :: std :: boxed :: Box < Tree > >) ;")), "{defs:?}");
    assert!(
        defs.iter().any(|d| d == "pub type Alias = Tree ;"),
        "{defs:?}"
    );
}

#[test]
fn unions_decide_by_a_table_of_what_each_alternative_says() {
    let (_, defs, _) = map(
        json!({}),
        json!({"oneOf": [{"type": "object", "required": ["kind"], "properties": {"kind": {"const": "a"}}},
                         {"type": "string", "pattern": "^0x"}]}),
    );
    let def = defs.last().unwrap();
    assert!(
        def.contains("values : & [(\"kind\" , & [\"\\\"a\\\"\"])]"),
        "{def}"
    );
    assert!(def.contains("Pattern :: new (\"^0x\")"), "{def}");
    assert!(
        def.contains("pub enum Thing { A (ThingA) , String (:: std :: string :: String) , }"),
        "{def}"
    );
}

#[test]
fn a_schema_nested_without_end_is_cut_off() {
    let mut schema = json!({"type": "string"});
    for _ in 0..200 {
        schema = json!({"type": "array", "items": schema});
    }
    let (_, _, notes) = map(json!({}), schema);
    assert_eq!(notes.len(), 1);
}
