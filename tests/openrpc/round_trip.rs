//! A document written here, both sides generated from it: the trait is
//! implemented as a server and the client calls it in process.

mod calculator {
    typed_rpc::openrpc!("tests/openrpc/specs/calculator.json");
}

use calculator::{
    Calculator, CalculatorClient, CalculatorService, Circle, Rectangle, Shape, ShapesScaleParams,
    ShapesScaleParamsUnit,
};
use serde_json::json;
use typed_rpc::client::InProcess;
use typed_rpc::{ErrorObject, ParamStyle, Router, RpcResult};

struct Calc;

impl Calculator for Calc {
    async fn subtract(&self, minuend: i64, subtrahend: i64) -> RpcResult<i64> {
        Ok(minuend - subtrahend)
    }

    async fn greet(&self, name: String, greeting: Option<String>) -> RpcResult<String> {
        Ok(format!(
            "{}, {name}",
            greeting.as_deref().unwrap_or("Hello")
        ))
    }

    async fn shapes_area(&self, shape: Shape) -> RpcResult<f64> {
        Ok(match shape {
            Shape::Circle(c) => 3.0 * c.radius * c.radius,
            Shape::Rectangle(r) => r.width * r.height,
        })
    }

    async fn shapes_scale(&self, params: ShapesScaleParams) -> RpcResult<Vec<Shape>> {
        if params.unit == Some(ShapesScaleParamsUnit::In) {
            return Err(ErrorObject::new(-32000, "inches are not scaled"));
        }
        let factor = params.factor.unwrap_or(1.0);
        Ok(params
            .shape_list
            .into_iter()
            .map(|shape| match shape {
                Shape::Circle(c) => Shape::Circle(Circle {
                    radius: c.radius * factor,
                    ..c
                }),
                Shape::Rectangle(r) => Shape::Rectangle(Rectangle {
                    width: r.width * factor,
                    height: r.height * factor,
                    extra: r.extra,
                }),
            })
            .collect())
    }

    async fn log(&self, _entry: serde_json::Map<String, serde_json::Value>) {}
}

fn client() -> CalculatorClient<InProcess> {
    CalculatorClient::new(InProcess::new(Router::new(Calc.into_service())))
}

#[tokio::test]
async fn the_generated_client_calls_the_generated_server() {
    let client = client();
    assert_eq!(client.subtract(42, 23).await.unwrap(), 19);
    assert_eq!(
        client.greet("Ada".into(), None).await.unwrap(),
        "Hello, Ada"
    );
    assert_eq!(
        client.greet("Ada".into(), Some("Hi".into())).await.unwrap(),
        "Hi, Ada"
    );
    let circle = Shape::Circle(Circle {
        radius: 2.0,
        label: Some("c".into()),
        extra: Default::default(),
    });
    assert_eq!(client.shapes_area(circle.clone()).await.unwrap(), 12.0);
    let scaled = client
        .shapes_scale(ShapesScaleParams {
            shape_list: vec![circle],
            factor: Some(2.0),
            unit: Some(ShapesScaleParamsUnit::Cm),
        })
        .await
        .unwrap();
    assert_eq!(
        scaled,
        [Shape::Circle(Circle {
            radius: 4.0,
            label: Some("c".into()),
            extra: Default::default(),
        })]
    );
    let err = client
        .shapes_scale(ShapesScaleParams {
            shape_list: vec![],
            factor: None,
            unit: Some(ShapesScaleParamsUnit::In),
        })
        .await
        .unwrap_err();
    assert_eq!(err.rpc_error().unwrap().code(), -32000);
    let entry = json!({"any": "thing"}).as_object().cloned().unwrap();
    client.log(entry).await.unwrap();
}

#[test]
fn the_document_decides_names_param_structure_and_optionality() {
    let info = CalculatorService::<()>::INFO;
    let names: Vec<_> = info.methods().iter().map(|m| m.name()).collect();
    assert_eq!(
        names,
        ["subtract", "greet", "shapes/area", "shapes/scale", "log"]
    );
    let [subtract, greet, _, scale, log] = info.methods() else {
        panic!("five methods");
    };
    assert_eq!(subtract.client_param_style(), ParamStyle::Positional);
    assert_eq!(greet.client_param_style(), ParamStyle::Named);
    let greet_params: Vec<_> = greet
        .param_list()
        .iter()
        .map(|p| (p.name(), p.is_optional()))
        .collect();
    assert_eq!(greet_params, [("name", false), ("greeting", true)]);
    // `shape-list` is no Rust name: the params are one struct that keeps it.
    assert!(scale.binds_whole_params());
    assert!(log.is_notification());
    assert_eq!(subtract.documentation(), "`minuend - subtrahend`.");
}

#[test]
fn generated_types_keep_the_json_names_of_the_document() {
    let params = ShapesScaleParams {
        shape_list: vec![Shape::Rectangle(Rectangle {
            width: 1.0,
            height: 2.0,
            extra: Default::default(),
        })],
        factor: None,
        unit: Some(ShapesScaleParamsUnit::Cm),
    };
    assert_eq!(
        serde_json::to_value(&params).unwrap(),
        json!({"shape-list": [{"width": 1.0, "height": 2.0}], "unit": "cm"})
    );
    let shape: Shape = serde_json::from_value(json!({"radius": 1.5})).unwrap();
    assert_eq!(
        shape,
        Shape::Circle(Circle {
            radius: 1.5,
            label: None,
            extra: Default::default(),
        })
    );
}
