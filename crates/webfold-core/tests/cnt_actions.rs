//! The agent action set: its JSON shape, its checked-in schema, and
//! validation against a page.

use std::path::PathBuf;

use webfold_core::action::{Action, ActionError, Effect, Resolved, Target, json_schema};
use webfold_core::cnt::{Cnt, CntId};
use webfold_core::{NodeId, Page};

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schema/actions.schema.json")
}

#[test]
fn checked_in_schema_is_current() {
    let generated = serde_json::to_string_pretty(&json_schema()).unwrap() + "\n";
    let path = schema_path();
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &generated).unwrap();
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "schema/actions.schema.json is stale: run UPDATE_GOLDEN=1 cargo test -p webfold-core --test cnt_actions"
    );
}

#[test]
fn schema_lists_every_action_with_its_fields() {
    let schema = json_schema();
    let variants = schema["oneOf"].as_array().expect("one schema per action");
    let mut names: Vec<(String, Vec<String>)> = variants
        .iter()
        .map(|v| {
            let name = v["properties"]["action"]["const"]
                .as_str()
                .expect("tag")
                .to_string();
            let mut required: Vec<String> = v["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_string())
                .collect();
            required.sort();
            (name, required)
        })
        .collect();
    names.sort();
    let expect = |n: &str, f: &[&str]| {
        (
            n.to_string(),
            f.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        names,
        vec![
            expect("check", &["action", "id"]),
            expect("click", &["action", "id"]),
            expect("describe_image", &["action", "id"]),
            expect("expand", &["action", "id"]),
            expect("go_back", &["action"]),
            expect("go_to", &["action", "url"]),
            expect("hover", &["action", "id"]),
            expect("no_action", &["action"]),
            expect("press", &["action", "key"]),
            expect("scroll_into_view", &["action", "id"]),
            expect("select", &["action", "id", "values"]),
            expect("talk", &["action", "message"]),
            expect("type", &["action", "id", "text"]),
            expect("write", &["action", "id", "text"]),
        ]
    );
}

#[test]
fn actions_read_and_write_as_tagged_json() {
    let cases = [
        (
            r#"{"action":"go_to","url":"https://example.com/"}"#,
            Action::GoTo {
                url: "https://example.com/".into(),
            },
        ),
        (r#"{"action":"go_back"}"#, Action::GoBack),
        (
            r#"{"action":"click","id":12}"#,
            Action::Click {
                id: Target::Node(NodeId::new(12)),
            },
        ),
        (
            r#"{"action":"write","id":4,"text":"hi"}"#,
            Action::Write {
                id: Target::Node(NodeId::new(4)),
                text: "hi".into(),
            },
        ),
        (
            r#"{"action":"expand","id":"12.3-97"}"#,
            Action::Expand {
                id: "12.3-97".parse().unwrap(),
            },
        ),
        (
            r#"{"action":"expand","id":7}"#,
            Action::Expand {
                id: CntId::Node(NodeId::new(7)),
            },
        ),
        (
            r#"{"action":"describe_image","id":9}"#,
            Action::DescribeImage {
                id: Target::Node(NodeId::new(9)),
            },
        ),
        (
            r#"{"action":"talk","message":"done"}"#,
            Action::Talk {
                message: "done".into(),
            },
        ),
        (r#"{"action":"no_action"}"#, Action::NoAction),
    ];
    for (json, action) in cases {
        assert_eq!(
            serde_json::from_str::<Action>(json).unwrap(),
            action,
            "{json}"
        );
        assert_eq!(serde_json::to_string(&action).unwrap(), json);
    }
    // What agents get wrong is refused when parsed.
    for bad in [
        r#"{"action":"click"}"#,
        r#"{"action":"fly"}"#,
        r#"{"action":"expand","id":"12.x"}"#,
    ] {
        assert!(serde_json::from_str::<Action>(bad).is_err(), "{bad}");
    }
}

const FORM: &str = "<body><form>\
    <label>Name <input name=name></label>\
    <textarea name=bio></textarea>\
    <select name=size><option value=s>Small</option><option>Large</option></select>\
    <input type=checkbox name=news value=yes>\
    <input type=text name=ro readonly value=x>\
    <input type=text name=off disabled>\
    <button type=submit>Send</button>\
    <div contenteditable>edit me</div>\
    <img src=/cat.png alt=cat>\
    <p>Just text at the end</p>\
    </form><div hidden><a href=/x>hidden</a></div></body>";

fn setup() -> (Page, Cnt) {
    let page = Page::parse(FORM);
    let cnt = Cnt::build(&page);
    (page, cnt)
}

fn node(page: &Page, sel: &str) -> NodeId {
    page.query(sel).unwrap_or_else(|e| panic!("{sel}: {e}"))
}

fn id(page: &Page, sel: &str) -> Target {
    Target::Node(node(page, sel))
}

#[test]
fn write_targets_fields_by_kind() {
    let (page, cnt) = setup();
    let check = |sel: &str, text: &str| {
        Action::Write {
            id: id(&page, sel),
            text: text.into(),
        }
        .validate(&page, &cnt)
    };
    let target = |sel: &str, effect: Effect| {
        Ok(Some(Resolved {
            node: node(&page, sel),
            effect,
        }))
    };
    assert_eq!(
        check("[name=name]", "Ada"),
        target("[name=name]", Effect::Type)
    );
    assert_eq!(check("textarea", "hello"), target("textarea", Effect::Type));
    assert_eq!(
        check("select", "s"),
        target(
            "select",
            Effect::Select {
                values: vec!["s".into()]
            }
        )
    );
    // An option without value is chosen by its text, as option.value gives.
    assert_eq!(
        check("select", "Large"),
        target(
            "select",
            Effect::Select {
                values: vec!["Large".into()]
            }
        )
    );
    assert_eq!(
        check("[name=news]", "yes"),
        target("[name=news]", Effect::Check { checked: true })
    );
    assert_eq!(
        check("[name=news]", ""),
        target("[name=news]", Effect::Check { checked: false })
    );
    assert_eq!(
        check("[contenteditable]", "new"),
        target("[contenteditable]", Effect::Edit)
    );
}

#[test]
fn write_refuses_what_cannot_take_text() {
    let (page, cnt) = setup();
    let err = |sel: &str, text: &str| {
        Action::Write {
            id: id(&page, sel),
            text: text.into(),
        }
        .validate(&page, &cnt)
        .unwrap_err()
    };
    let e = err("select", "Small");
    assert!(
        matches!(&e, ActionError::NoSuchOption { options, .. } if options == &["s", "Large"]),
        "{e}"
    );
    assert!(
        e.to_string().contains("use one of these values: s, Large"),
        "{e}"
    );
    assert!(err("[name=news]", "on").to_string().contains("\"yes\""));
    assert!(err("[name=ro]", "y").to_string().contains("read-only"));
    assert!(err("[name=off]", "y").to_string().contains("disabled"));
    assert!(err("button", "y").to_string().contains("click it instead"));
    assert!(
        err("img", "y")
            .to_string()
            .contains("write works on inputs")
    );
}

#[test]
fn unknown_and_hidden_ids_are_refused() {
    let (page, cnt) = setup();
    let e = Action::Click {
        id: Target::Node(NodeId::new(100_000)),
    }
    .validate(&page, &cnt)
    .unwrap_err();
    assert_eq!(e, ActionError::UnknownId(NodeId::new(100_000)));
    let hidden = node(&page, "a[href='/x']");
    let e = Action::Click {
        id: Target::Node(hidden),
    }
    .validate(&page, &cnt)
    .unwrap_err();
    assert_eq!(e, ActionError::NotInCnt(hidden));
    assert!(e.to_string().contains("latest CNT"));
    let e = Action::Expand {
        id: "3.0-99".parse().unwrap(),
    }
    .validate(&page, &cnt)
    .unwrap_err();
    assert!(matches!(e, ActionError::BadExpand(_)), "{e}");
}

#[test]
fn click_targets_the_clickable_member_of_a_merged_node() {
    let page =
        Page::parse("<body><ul><li><a href=/a>A</a></li><li><a href=/b>B</a></li></ul></body>");
    let cnt = Cnt::build(&page);
    let li = node(&page, "li");
    let a = node(&page, "a");
    assert_eq!(cnt.node_of(a).map(|n| n.id), Some(li), "li absorbed the a");
    let t = Action::Click {
        id: Target::Node(li),
    }
    .validate(&page, &cnt)
    .unwrap()
    .unwrap();
    assert_eq!(
        t,
        Resolved {
            node: a,
            effect: Effect::Click
        }
    );
}

#[test]
fn describe_image_needs_a_src() {
    let (page, cnt) = setup();
    let img = id(&page, "img");
    let t = Action::DescribeImage { id: img }
        .validate(&page, &cnt)
        .unwrap()
        .unwrap();
    assert_eq!(
        t.effect,
        Effect::Image {
            src: "/cat.png".into()
        }
    );
    let e = Action::DescribeImage {
        id: id(&page, "textarea"),
    }
    .validate(&page, &cnt)
    .unwrap_err();
    assert!(
        matches!(e, ActionError::Refused { .. }) && e.to_string().contains("no src"),
        "{e}"
    );
}

#[test]
fn go_to_and_talk_are_checked() {
    let (page, cnt) = setup();
    let go = |u: &str| Action::GoTo { url: u.into() }.validate(&page, &cnt);
    assert_eq!(go("https://example.com/a?b=c"), Ok(None));
    assert!(
        go("/relative")
            .unwrap_err()
            .to_string()
            .contains("click it")
    );
    assert!(
        go("javascript:alert(1)")
            .unwrap_err()
            .to_string()
            .contains("scheme javascript")
    );
    assert_eq!(
        Action::Talk {
            message: " ".into()
        }
        .validate(&page, &cnt),
        Err(ActionError::EmptyMessage)
    );
    assert_eq!(Action::NoAction.validate(&page, &cnt), Ok(None));
    assert_eq!(Action::GoBack.validate(&page, &cnt), Ok(None));
}

#[test]
fn browser_steps_read_as_actions_by_ref() {
    let steps: Vec<Action> = serde_json::from_str(
        r#"[{"action": "click", "ref": "e3"},
            {"action": "type", "ref": "e4", "text": "hi", "submit": true},
            {"action": "check", "ref": "e5"},
            {"action": "navigate", "url": "https://example.com"},
            {"action": "back"},
            {"action": "scroll_into_view", "id": 9},
            {"action": "write", "ref": "[ref=e6]", "text": "x"}]"#,
    )
    .unwrap();
    let shown: Vec<String> = steps.iter().map(ToString::to_string).collect();
    assert_eq!(
        shown,
        [
            "click e3",
            "type into e4 and submit",
            "check e5",
            "go to https://example.com",
            "go back",
            "scroll node 9 into view",
            "write \"x\" to e6",
        ]
    );
    for bad in [
        r#"{"action": "click", "selector": "a"}"#,
        r#"{"action": "click", "ref": "button"}"#,
        r#"{"action": "click", "ref": "e1", "id": 3}"#,
    ] {
        assert!(serde_json::from_str::<Action>(bad).is_err(), "{bad}");
    }
    let err = serde_json::from_str::<Action>(r#"{"action": "click", "ref": "button"}"#)
        .unwrap_err()
        .to_string();
    assert!(err.contains("such as e12"), "{err}");
}

#[test]
fn finer_steps_check_their_element() {
    let (page, cnt) = setup();
    let run = |a: Action| a.validate(&page, &cnt);
    let field = |sel: &str| Action::Type {
        id: id(&page, sel),
        text: "t".into(),
        submit: false,
    };
    assert_eq!(
        run(field("textarea")).unwrap().unwrap().effect,
        Effect::Type
    );
    assert!(
        run(field("select"))
            .unwrap_err()
            .to_string()
            .contains("not a text field")
    );
    assert!(
        run(field("[name=off]"))
            .unwrap_err()
            .to_string()
            .contains("disabled")
    );
    let select = |v: &str| Action::Select {
        id: id(&page, "select"),
        values: vec![v.into()],
    };
    // select takes labels as well as values; write takes values only.
    assert!(run(select("Small")).is_ok());
    assert!(
        run(select("Medium"))
            .unwrap_err()
            .to_string()
            .contains("s, Large")
    );
    let check = |sel: &str, checked: bool| Action::Check {
        id: id(&page, sel),
        checked,
    };
    assert_eq!(
        run(check("[name=news]", false)).unwrap().unwrap().effect,
        Effect::Check { checked: false }
    );
    assert!(
        run(check("textarea", true))
            .unwrap_err()
            .to_string()
            .contains("not a checkbox")
    );
    // On a CNT, elements are named by id; a snapshot ref is refused.
    let by_ref = Action::Click {
        id: Target::Ref("e2".into()),
    };
    assert_eq!(run(by_ref), Err(ActionError::NotAnId("e2".into())));
    // One live element at a time: write decides by the element's kind.
    let at = |sel: &str, text: &str| {
        Action::Write {
            id: Target::Ref("e7".into()),
            text: text.into(),
        }
        .effect_at(&page, node(&page, sel), "e7")
    };
    assert_eq!(
        at("[name=news]", "yes").unwrap().effect,
        Effect::Check { checked: true }
    );
    assert_eq!(at("[contenteditable]", "x").unwrap().effect, Effect::Edit);
    let e = at("button", "x").unwrap_err().to_string();
    assert!(e.starts_with("cannot write to e7 (button)"), "{e}");
}
