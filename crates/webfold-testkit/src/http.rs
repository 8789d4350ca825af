//! A static page server on 127.0.0.1 (a free port): fixed answers by path,
//! files from a directory, redirects and any status. One thread a
//! connection, `Connection: close`, for as long as the test runs.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;

/// One answer: status line text, content type, optional `Location`, other
/// headers, body.
#[derive(Clone, Debug)]
pub struct Response {
    pub status: String,
    pub content_type: String,
    pub location: Option<String>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Response {
    /// `200 OK` with `content_type`.
    pub fn ok(content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response::status("200 OK", content_type, body)
    }

    /// `200 OK`, `text/html; charset=utf-8`.
    pub fn html(body: impl Into<Vec<u8>>) -> Response {
        Response::ok("text/html; charset=utf-8", body)
    }

    /// Any status line text (`"404 Not Found"`) with a body.
    pub fn status(status: &str, content_type: &str, body: impl Into<Vec<u8>>) -> Response {
        Response {
            status: status.into(),
            content_type: content_type.into(),
            location: None,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// The answer with one more header (`X-Frame-Options: DENY`, …).
    pub fn header(mut self, name: &str, value: &str) -> Response {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// A redirect (`"302 Found"`, `"301 Moved Permanently"`) to `location`.
    pub fn redirect(status: &str, location: &str) -> Response {
        Response {
            location: Some(location.into()),
            ..Response::status(status, "text/plain", Vec::new())
        }
    }
}

/// What a [`Site`] answers: its routes, then its directory, then its
/// fallback. Paths are matched without their query and fragment.
#[derive(Clone, Debug)]
pub struct Site {
    routes: HashMap<String, Response>,
    root: Option<PathBuf>,
    fallback: Response,
}

impl Default for Site {
    fn default() -> Site {
        Site {
            routes: HashMap::new(),
            root: None,
            fallback: Response::status("404 Not Found", "text/html; charset=utf-8", "not found"),
        }
    }
}

impl Site {
    pub fn new() -> Site {
        Site::default()
    }

    /// HTML at `path`.
    pub fn page(self, path: &str, html: impl Into<Vec<u8>>) -> Site {
        self.route(path, Response::html(html))
    }

    /// Every `(path, html)` pair.
    pub fn pages<P: AsRef<str>, B: Into<Vec<u8>>>(
        mut self,
        pages: impl IntoIterator<Item = (P, B)>,
    ) -> Site {
        for (path, html) in pages {
            self = self.page(path.as_ref(), html);
        }
        self
    }

    /// Any answer at `path`.
    pub fn route(mut self, path: &str, response: Response) -> Site {
        self.routes.insert(path.into(), response);
        self
    }

    /// Files under `root` (never outside it), typed by extension.
    pub fn files(mut self, root: impl Into<PathBuf>) -> Site {
        let root = root.into();
        self.root = Some(root.canonicalize().unwrap_or(root));
        self
    }

    /// The answer for every other path (by default a 404, `not found`).
    pub fn fallback(mut self, response: Response) -> Site {
        self.fallback = response;
        self
    }

    /// Starts serving; the base URL, `http://127.0.0.1:PORT` (no slash).
    pub fn serve(self) -> String {
        self.serve_on(TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0"))
    }

    /// Starts serving on `listener`, bound beforehand so that two sites'
    /// pages can name each other's address; the base URL, no slash.
    pub fn serve_on(self, listener: TcpListener) -> String {
        let addr = listener.local_addr().expect("local address");
        let site = Arc::new(self);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let site = site.clone();
                std::thread::spawn(move || site.answer(stream));
            }
        });
        format!("http://{addr}")
    }

    fn lookup(&self, path: &str) -> Response {
        let path = path.split(['?', '#']).next().unwrap_or("/");
        if let Some(r) = self.routes.get(path) {
            return r.clone();
        }
        self.file(path).unwrap_or_else(|| self.fallback.clone())
    }

    fn file(&self, path: &str) -> Option<Response> {
        let root = self.root.as_ref()?;
        let file = root.join(path.trim_start_matches('/'));
        let body = file
            .canonicalize()
            .ok()
            .filter(|f| f.starts_with(root) && f.is_file())
            .and_then(|f| std::fs::read(f).ok())?;
        let kind = match file.extension().and_then(|e| e.to_str()) {
            Some("html") => "text/html; charset=utf-8",
            Some("js") => "text/javascript",
            Some("css") => "text/css",
            _ => "application/octet-stream",
        };
        Some(Response::ok(kind, body))
    }

    fn answer(&self, mut stream: TcpStream) {
        let Some(path) = read_path(&stream) else {
            return;
        };
        let r = self.lookup(&path);
        let mut head = format!(
            "HTTP/1.1 {}\r\ncontent-type: {}\r\ncontent-length: {}\r\nconnection: close\r\n",
            r.status,
            r.content_type,
            r.body.len()
        );
        if let Some(l) = &r.location {
            head.push_str(&format!("location: {l}\r\n"));
        }
        for (name, value) in &r.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&r.body);
    }
}

/// Reads a request's head; its path.
fn read_path(stream: &TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line).ok()?;
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    Some(
        request_line
            .split_whitespace()
            .nth(1)
            .unwrap_or("/")
            .to_owned(),
    )
}

/// Serves `html` for every path; its URL, `http://127.0.0.1:PORT/`.
pub fn serve_page(html: impl Into<Vec<u8>>) -> String {
    format!("{}/", Site::new().fallback(Response::html(html)).serve())
}

/// Serves `pages` (path → HTML, 404 elsewhere); the base URL, no slash.
pub fn serve_pages<P: AsRef<str>, B: Into<Vec<u8>>>(
    pages: impl IntoIterator<Item = (P, B)>,
) -> String {
    Site::new().pages(pages).serve()
}
