//! `__with_schema!`, which the expansions of `#[rpc]` and
//! `#[derive(RpcError)]` call to give a description the functions that
//! write its JSON Schemas: one definition with the `schema` feature, one
//! that adds nothing without it.

/// `info` with the JSON Schema function of `ty` set, when the runtime is
/// built with its `schema` feature; `info` as it is otherwise.
///
/// The macro's expansion calls this rather than naming `schemars` itself: a
/// `cfg` in generated code would test the features of the user's crate, not
/// those of the runtime.
#[cfg(feature = "schema")]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_schema {
    (param $info:expr, $ty:ty) => {
        $info.schema($crate::__schema_fn!($ty))
    };
    (result $info:expr, $ty:ty) => {
        $info.result_schema($crate::__schema_fn!($ty))
    };
    (returns $info:expr, $ty:ty) => {
        $info.result_schema($crate::__result_schema_fn!($ty))
    };
    // An error's `data`: one value, the fields of an object, the elements
    // of an array.
    (data $info:expr, $ty:ty) => {
        $info.data_schema($crate::__schema_fn!($ty))
    };
    (fields $info:expr, { $($key:literal : $ty:ty),* }) => {
        $info.data_schema({
            fn schema(
                generator: &mut $crate::schema::schemars::SchemaGenerator,
            ) -> $crate::schema::schemars::Schema {
                let mut properties = $crate::__private::serde_json::Map::new();
                $(properties.insert($key.into(), ($crate::__schema_fn!($ty))(generator).to_value());)*
                $crate::schema::schemars::json_schema!({
                    "type": "object",
                    "properties": properties,
                    "required": [$($key),*],
                })
            }
            schema as $crate::schema::SchemaFn
        })
    };
    (elements $info:expr, [ $($ty:ty),* ]) => {
        $info.data_schema({
            fn schema(
                generator: &mut $crate::schema::schemars::SchemaGenerator,
            ) -> $crate::schema::schemars::Schema {
                let items = [$(($crate::__schema_fn!($ty))(generator).to_value()),*];
                $crate::schema::schemars::json_schema!({
                    "type": "array",
                    "items": items,
                    "minItems": items.len(),
                    "maxItems": items.len(),
                })
            }
            schema as $crate::schema::SchemaFn
        })
    };
}

/// `info` as it is: the runtime is built without its `schema` feature.
#[cfg(not(feature = "schema"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __with_schema {
    ($which:ident $info:expr, $($rest:tt)*) => {
        $info
    };
}
