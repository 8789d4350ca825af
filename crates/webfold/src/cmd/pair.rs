use clap::Parser;
use webfold_daemon::auth::{EXTENSION_ID, Token, allowed_extensions, is_extension_id};
use webfold_daemon::daemon::{Endpoint, configured_port};
use webfold_daemon::home::{Home, write_private};
use webfold_protocol::native::Pairing;

/// Print what the browser extension needs to connect: the daemon's address,
/// the token and how to present it, and the extension origins allowed.
#[derive(Parser)]
pub struct Args {
    /// Also allow this extension id (a development copy or a store build)
    #[arg(long, value_name = "ID")]
    allow_extension: Option<String>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> anyhow::Result<()> {
    let home = Home::from_env()?;
    let token = Token::load_or_create(&home)?;
    if let Some(id) = &args.allow_extension {
        anyhow::ensure!(
            is_extension_id(id),
            "'{id}' is not an extension id: it is 32 letters a to p, as chrome://extensions shows it"
        );
        let mut ids = allowed_extensions(&home);
        if !ids.contains(id) {
            ids.push(id.clone());
            let extra: Vec<&str> = ids
                .iter()
                .map(String::as_str)
                .filter(|i| *i != EXTENSION_ID)
                .collect();
            write_private(
                &home.extensions(),
                format!("{}\n", extra.join("\n")).as_bytes(),
            )?;
        }
    }
    let pairing = pairing(&home, &token)?;
    if args.json {
        return crate::out::line(&serde_json::to_string_pretty(&pairing)?);
    }
    let mut text = format!(
        "WebSocket: {}?sessionId=<the tab's session id>\n\
         Token:     {}\n\
         Present it as the WebSocket subprotocol {}\n  \
         (or send {{\"type\":\"hello\",\"token\":\"…\"}} as the first frame).\n\
         Allowed:   {}\n",
        pairing.ws_url,
        pairing.token,
        pairing.subprotocol,
        pairing.origins.join(", ")
    );
    if !pairing.daemon_running {
        text.push_str(
            "The daemon is not running: start it with `webfold daemon` (a `webfold mcp --tools …,ui` starts it too).\n",
        );
    }
    crate::out::line(&text)
}

/// What the extension needs to connect: the running daemon's address (else
/// the one it will listen on), the token, the origins it admits.
pub fn pairing(home: &Home, token: &Token) -> anyhow::Result<Pairing> {
    let running = Endpoint::read(home);
    let port = match &running {
        Some(e) => e.port,
        None => configured_port()?,
    };
    let origins: Vec<String> = allowed_extensions(home)
        .into_iter()
        .map(|id| format!("chrome-extension://{id}"))
        .collect();
    Ok(Pairing {
        ws_url: format!("ws://127.0.0.1:{port}/ws"),
        session_param: "sessionId".into(),
        token: token.as_str().to_string(),
        auth: "subprotocol".into(),
        subprotocol: token.subprotocol(),
        origin: origins[0].clone(),
        origins,
        daemon_running: running.is_some(),
    })
}
