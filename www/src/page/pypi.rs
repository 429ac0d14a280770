//! `#pypi=NAME==VERSION` links: a release on a Python package index, resolved through the
//! index's JSON API (PEP 691) to one of its wheels, which is then read by ranges like a
//! `#url=` link.
//!
//! The link: `#pypi=NAME[==VERSION][&platform=TAG][&python=X.Y][&index=URL]`. Without a
//! version the newest release (not a pre-release, unless there is nothing else) is taken;
//! without a platform, a `manylinux` x86_64 wheel; without a Python, the newest CPython a wheel
//! is for; a pure-Python wheel (`py3-none-any`) only when no wheel fits the platform. The index
//! defaults to the Python package index (`https://pypi.org/simple/`), which lets pages read
//! its JSON and files from any origin.
//!
//! Parsing the link, reading wheel file names (`NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl`,
//! each tag possibly a `.`-separated set) and choosing a wheel are browser-free; fetching the
//! index builds only for `wasm32`.

/// The index a link without `&index=` resolves against.
pub const DEFAULT_INDEX: &str = "https://pypi.org/simple/";

/// What a `#pypi=` link asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PypiLink {
    /// The project's name as written.
    pub name: String,
    /// The release (`==VERSION`), or `None` for the newest.
    pub version: Option<String>,
    /// A platform tag such as `manylinux_2_28_x86_64`.
    pub platform: Option<String>,
    /// A Python version such as `3.12`.
    pub python: Option<(u32, u32)>,
    /// The index's address (its `simple/` root).
    pub index: String,
}

impl PypiLink {
    /// `NAME==VERSION`, or `NAME` for the newest release.
    pub fn requirement(&self) -> String {
        match &self.version {
            Some(v) => format!("{}=={v}", self.name),
            None => self.name.clone(),
        }
    }
}

/// Reads a fragment that starts with `pypi=` (the `#` optional); `None` for other fragments.
pub fn parse_link(fragment: &str) -> Option<Result<PypiLink, String>> {
    let fragment = fragment.strip_prefix('#').unwrap_or(fragment);
    let rest = fragment.strip_prefix("pypi=")?;
    Some(parse_parameters(rest))
}

fn parse_parameters(rest: &str) -> Result<PypiLink, String> {
    let mut parts = rest.split('&');
    let requirement = decode(parts.next().unwrap_or_default());
    let (name, version) = match requirement.split_once("==") {
        Some((name, version)) => (name.trim().to_string(), Some(version.trim().to_string())),
        None => (requirement.trim().to_string(), None),
    };
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')) {
        return Err(format!(
            "expected a project name (letters, digits, '-', '_', '.') after pypi=, optionally ==VERSION, found \"{requirement}\""
        ));
    }
    if version.as_deref().is_some_and(|v| v.is_empty() || v.contains(char::is_whitespace)) {
        return Err(format!("expected a version after ==, found \"{requirement}\""));
    }
    let mut link = PypiLink { name, version, platform: None, python: None, index: DEFAULT_INDEX.to_string() };
    for part in parts {
        let (key, value) = part.split_once('=').ok_or_else(|| {
            format!("expected key=value parameters after pypi= (platform=, python=, index=), found \"{part}\"")
        })?;
        let value = decode(value);
        match key {
            "platform" => link.platform = Some(value),
            "python" => {
                link.python = Some(parse_python(&value).ok_or_else(|| {
                    format!("expected a Python version such as 3.12 after python=, found \"{value}\"")
                })?)
            }
            "index" => link.index = value,
            _ => {
                return Err(format!(
                    "expected the parameters platform=, python= or index= after pypi=, found \"{key}=\""
                ))
            }
        }
    }
    Ok(link)
}

fn decode(text: &str) -> String {
    crate::page::share::percent_decode(text)
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .unwrap_or_else(|| text.to_string())
}

fn parse_python(text: &str) -> Option<(u32, u32)> {
    let (major, minor) = text.trim().split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// A project's name as the index files it (PEP 503: lower case, runs of `-`, `_`, `.` as one
/// `-`).
pub fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

/// The address of a project's page on an index.
pub fn project_url(index: &str, name: &str) -> String {
    format!("{}/{}/", index.trim_end_matches('/'), normalize(name))
}

/// A file a project's index page lists (PEP 691 `files[]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexFile {
    pub filename: String,
    /// Its address, absolute.
    pub url: String,
    pub yanked: bool,
}

/// What a wheel's file name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WheelName {
    pub version: String,
    pub python: Vec<String>,
    pub abi: Vec<String>,
    pub platform: Vec<String>,
}

/// Reads `NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl`; `None` for anything else.
pub fn wheel_name(filename: &str) -> Option<WheelName> {
    let stem = filename.strip_suffix(".whl")?;
    let parts: Vec<&str> = stem.split('-').collect();
    if !(parts.len() == 5 || parts.len() == 6) || parts.iter().any(|p| p.is_empty()) {
        return None;
    }
    let n = parts.len();
    let set = |s: &str| s.split('.').map(str::to_string).collect::<Vec<_>>();
    Some(WheelName {
        version: parts[1].to_string(),
        python: set(parts[n - 3]),
        abi: set(parts[n - 2]),
        platform: set(parts[n - 1]),
    })
}

/// A release's version as compared: its release numbers, and whether it is a pre-release or
/// development release (which the newest is not taken from while there are others).
fn version_key(version: &str) -> (bool, Vec<u64>) {
    let version = version.trim().trim_start_matches(['v', 'V']);
    let public = version.split('+').next().unwrap_or_default();
    let numbers: Vec<u64> = public.split('.').map_while(|p| p.parse().ok()).collect();
    let lower = public.to_ascii_lowercase();
    let pre = ["a", "b", "c", "rc", "dev", "alpha", "beta", "pre", "preview"]
        .iter()
        .any(|m| lower.split(|c: char| c == '.' || c == '-' || c == '_' || c.is_ascii_digit()).any(|part| part == *m));
    (!pre, numbers)
}

/// The platform a wheel must run on, and how well a platform tag fits it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Platform {
    arch: String,
    /// The newest glibc the system has (`manylinux_X_Y`), or `None` for any.
    glibc: Option<(u32, u32)>,
    /// Another tag named exactly (not a manylinux tag): only it fits.
    exact: Option<String>,
}

impl Platform {
    fn from_link(tag: Option<&str>) -> Platform {
        let Some(tag) = tag else { return Platform { arch: "x86_64".into(), glibc: None, exact: None } };
        match manylinux(tag) {
            Some((glibc, arch)) => Platform { arch, glibc: Some(glibc), exact: None },
            None => Platform { arch: String::new(), glibc: None, exact: Some(tag.to_string()) },
        }
    }

    /// The glibc a tag needs when it fits this platform (higher is newer code), `None` when
    /// it does not fit.
    fn fits(&self, tag: &str) -> Option<(u32, u32)> {
        if let Some(exact) = &self.exact {
            return (tag == exact).then_some((0, 0));
        }
        let (glibc, arch) = manylinux(tag)?;
        (arch == self.arch && self.glibc.is_none_or(|most| glibc <= most)).then_some(glibc)
    }

    fn describe(&self) -> String {
        match (&self.exact, self.glibc) {
            (Some(tag), _) => tag.clone(),
            (None, Some((major, minor))) => format!("manylinux_{major}_{minor}_{}", self.arch),
            (None, None) => format!("manylinux {}", self.arch),
        }
    }
}

/// `manylinux_X_Y_ARCH` (and the legacy `manylinux1`, `manylinux2010`, `manylinux2014`) as the
/// glibc it needs and its architecture.
fn manylinux(tag: &str) -> Option<((u32, u32), String)> {
    for (legacy, glibc) in [("manylinux1_", (2, 5)), ("manylinux2010_", (2, 12)), ("manylinux2014_", (2, 17))] {
        if let Some(arch) = tag.strip_prefix(legacy) {
            return Some((glibc, arch.to_string()));
        }
    }
    let rest = tag.strip_prefix("manylinux_")?;
    let mut parts = rest.splitn(3, '_');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let arch = parts.next()?.to_string();
    Some(((major, minor), arch))
}

/// The CPython version a wheel's Python tag and ABI are for, when the link's (or any) Python
/// can load it: `cpXY` (exact, or for `abi3` any XY at most the link's), `pyX`/`pyXY` (pure
/// Python tags, which any version loads: ranked lowest).
fn python_fit(python: &str, abi: &str, wanted: Option<(u32, u32)>) -> Option<(u32, u32, u32)> {
    if let Some(version) = python.strip_prefix("cp") {
        let (major, minor) = version.split_at_checked(1)?;
        let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
        let fits = match wanted {
            None => true,
            Some(w) if abi == "abi3" => major == w.0 && minor <= w.1,
            Some(w) => (major, minor) == w,
        };
        // An exact build ranks over a stable-ABI one for the same version.
        return fits.then_some((major, minor, if abi == "abi3" { 1 } else { 2 }));
    }
    if python == "py3" || python.starts_with("py3") {
        return wanted.is_none_or(|w| w.0 == 3).then_some((0, 0, 0));
    }
    None
}

/// The wheel chosen for a link, with why, and the release's other wheels to pick from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    /// The release.
    pub version: String,
    /// Every wheel of the release, in the index's order.
    pub wheels: Vec<IndexFile>,
    /// Which of them is chosen.
    pub chosen: usize,
    pub why: String,
}

/// Chooses the wheel of `link`'s release among an index page's `files`.
pub fn choose(link: &PypiLink, files: &[IndexFile]) -> Result<Choice, String> {
    let wheels: Vec<(&IndexFile, WheelName)> =
        files.iter().filter_map(|f| wheel_name(&f.filename).map(|w| (f, w))).collect();
    if wheels.is_empty() {
        return Err(format!("{} has no wheels on {}", link.name, link.index));
    }
    let version = match &link.version {
        Some(v) => v.clone(),
        None => {
            newest(&wheels).ok_or_else(|| format!("{} has no releases with wheels that are not yanked", link.name))?
        }
    };
    let release: Vec<&(&IndexFile, WheelName)> =
        wheels.iter().filter(|(_, w)| same_version(&w.version, &version)).collect();
    if release.is_empty() {
        let mut known: Vec<&str> = wheels.iter().map(|(_, w)| w.version.as_str()).collect();
        known.dedup();
        return Err(format!(
            "{} has no wheels of version {version} on {}; versions with wheels: {}",
            link.name,
            link.index,
            known.join(", ")
        ));
    }
    let platform = Platform::from_link(link.platform.as_deref());
    let ranked = release.iter().enumerate().filter_map(|(i, (_, w))| rank(w, &platform, link.python).map(|r| (r, i)));
    let Some((best, index)) = ranked.max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1))) else {
        let python = link.python.map(|(a, b)| format!(" and Python {a}.{b}")).unwrap_or_default();
        return Err(format!(
            "{} {version} has no wheel for {}{python}, nor a pure-Python one: pick one of its {} wheels",
            link.name,
            platform.describe(),
            release.len()
        ));
    };
    let chosen_name = &release[index].1;
    let why = reason(&best, chosen_name, &platform, link);
    Ok(Choice { version, wheels: release.iter().map(|(f, _)| (*f).clone()).collect(), chosen: index, why })
}

fn same_version(a: &str, b: &str) -> bool {
    a == b || version_key(a) == version_key(b) && a.trim_end_matches(".0") == b.trim_end_matches(".0")
}

/// The newest release among the wheels that are not yanked: not a pre-release while there is
/// another.
fn newest(wheels: &[(&IndexFile, WheelName)]) -> Option<String> {
    wheels
        .iter()
        .filter(|(f, _)| !f.yanked)
        .max_by(|(_, a), (_, b)| version_key(&a.version).cmp(&version_key(&b.version)))
        .map(|(_, w)| w.version.clone())
}

/// How well a wheel fits, higher is better: (fits the platform rather than pure Python, its
/// CPython version and build kind, the glibc it needs); `None` when it does not fit at all.
type Rank = (bool, (u32, u32, u32), (u32, u32));

fn rank(wheel: &WheelName, platform: &Platform, python: Option<(u32, u32)>) -> Option<Rank> {
    let mut best: Option<Rank> = None;
    for py in &wheel.python {
        for abi in &wheel.abi {
            let Some(py_fit) = python_fit(py, abi, python) else { continue };
            for tag in &wheel.platform {
                let fit = if tag == "any" { Some((false, (0, 0))) } else { platform.fits(tag).map(|g| (true, g)) };
                if let Some((native, glibc)) = fit {
                    let r = (native, py_fit, glibc);
                    best = best.max(Some(r));
                }
            }
        }
    }
    best
}

fn reason(rank: &Rank, wheel: &WheelName, platform: &Platform, link: &PypiLink) -> String {
    let (native, (major, minor, _), _) = *rank;
    let release = match &link.version {
        Some(v) => format!("release {v}"),
        None => format!("release {} (the newest)", wheel.version),
    };
    if !native {
        return format!("{release}: no wheel for {}, so the pure-Python wheel", platform.describe());
    }
    let python = match link.python {
        Some((a, b)) => format!("Python {a}.{b}, as the link asks"),
        None => format!("CPython {major}.{minor}, the newest the release has a wheel for"),
    };
    let platform_text = match &link.platform {
        Some(p) => format!("{p}, as the link asks"),
        None => format!("{} (the default; add &platform= to the link for another)", platform.describe()),
    };
    format!("{release}; platform {platform_text}; {python}")
}

#[cfg(target_arch = "wasm32")]
pub use browser::release_files;

#[cfg(target_arch = "wasm32")]
mod browser {
    use super::{project_url, IndexFile, PypiLink};
    use crate::page::share::check_remote_address;
    use js_sys::{Array, Reflect, JSON};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::JsFuture;
    use web_sys::{Headers, RequestCredentials, RequestInit, RequestMode, Response, Url};

    /// The files of `link`'s project on its index (PEP 691 JSON), their addresses made
    /// absolute and checked as `#url=` addresses are.
    pub async fn release_files(link: &PypiLink) -> Result<Vec<IndexFile>, String> {
        let base = gloo_utils::document().base_uri().ok().flatten().unwrap_or_default();
        let page = Url::new_with_base(&project_url(&link.index, &link.name), &base)
            .map_err(|_| format!("expected the address of a package index after index=, found \"{}\"", link.index))?;
        check_remote_address(&page.protocol(), &page.hostname())?;
        let init = RequestInit::new();
        init.set_method("GET");
        init.set_mode(RequestMode::Cors);
        init.set_credentials(RequestCredentials::Omit);
        let headers = Headers::new().map_err(|e| format!("{e:?}"))?;
        headers.set("Accept", "application/vnd.pypi.simple.v1+json").map_err(|e| format!("{e:?}"))?;
        init.set_headers(&headers);
        let window = web_sys::window().ok_or("no window")?;
        let host = page.host();
        let response: Response = JsFuture::from(window.fetch_with_str_and_init(&page.href(), &init))
            .await
            .map_err(|_| format!("the package index at {host} could not be read from this page (it could not be reached, or it does not let other sites read it)"))?
            .unchecked_into();
        if response.status() == 404 {
            return Err(format!("{} is not on the package index at {host} (HTTP 404 for {})", link.name, page.href()));
        }
        if !response.ok() {
            return Err(format!("the package index at {host} answered HTTP {} for {}", response.status(), page.href()));
        }
        let text = JsFuture::from(response.text().map_err(|e| format!("{e:?}"))?)
            .await
            .map_err(|e| format!("the package index's answer could not be read: {e:?}"))?;
        let doc = JSON::parse(&text.as_string().unwrap_or_default())
            .map_err(|_| format!("expected the index's JSON (PEP 691) for {}, found something else", page.href()))?;
        let files: Array = Reflect::get(&doc, &"files".into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or_else(|| format!("expected a list of files in the index's JSON for {}", page.href()))?;
        let mut out = Vec::new();
        for file in files.iter() {
            let text = |key: &str| Reflect::get(&file, &key.into()).ok().and_then(|v| v.as_string());
            let (Some(filename), Some(address)) = (text("filename"), text("url")) else { continue };
            let Ok(url) = Url::new_with_base(&address, &page.href()) else { continue };
            let yanked = Reflect::get(&file, &"yanked".into()).map(|y| is_yanked(&y)).unwrap_or(false);
            if check_remote_address(&url.protocol(), &url.hostname()).is_ok() {
                out.push(IndexFile { filename, url: url.href(), yanked });
            }
        }
        Ok(out)
    }

    /// PEP 691's `yanked`: `false`, `true`, or the reason as a string.
    fn is_yanked(value: &JsValue) -> bool {
        value.as_bool().unwrap_or_else(|| value.as_string().is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(names: &[&str]) -> Vec<IndexFile> {
        names
            .iter()
            .map(|n| IndexFile { filename: n.to_string(), url: format!("https://files.example/{n}"), yanked: false })
            .collect()
    }

    fn link(text: &str) -> PypiLink {
        parse_link(text).expect("a pypi link").expect("a valid link")
    }

    fn chosen(link_text: &str, names: &[&str]) -> String {
        let choice = choose(&link(link_text), &files(names)).unwrap();
        choice.wheels[choice.chosen].filename.clone()
    }

    const TORCH: &[&str] = &[
        "torch-2.8.0-cp310-cp310-manylinux_2_28_x86_64.whl",
        "torch-2.8.0-cp312-cp312-manylinux_2_28_aarch64.whl",
        "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl",
        "torch-2.8.0-cp312-cp312-win_amd64.whl",
        "torch-2.8.0-cp313-cp313-macosx_11_0_arm64.whl",
        "torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64.whl",
        "torch-2.7.1-cp313-cp313-manylinux_2_28_x86_64.whl",
        "torch-2.9.0rc1-cp313-cp313-manylinux_2_28_x86_64.whl",
        "torch-2.8.0.tar.gz",
    ];

    #[test]
    fn links_are_read() {
        assert_eq!(parse_link("#url=x"), None);
        let l = link("#pypi=vllm==0.10.1&platform=manylinux_2_28_x86_64&python=3.12&index=http%3A%2F%2F127.0.0.1%3A9%2Fsimple%2F");
        assert_eq!(l.name, "vllm");
        assert_eq!(l.version.as_deref(), Some("0.10.1"));
        assert_eq!(l.platform.as_deref(), Some("manylinux_2_28_x86_64"));
        assert_eq!(l.python, Some((3, 12)));
        assert_eq!(l.index, "http://127.0.0.1:9/simple/");
        assert_eq!(link("pypi=Torch").version, None);
        assert_eq!(link("pypi=Torch").index, DEFAULT_INDEX);
        assert!(parse_link("pypi=").unwrap().unwrap_err().contains("expected a project name"));
        assert!(parse_link("pypi=a b").unwrap().unwrap_err().contains("found \"a b\""));
        assert!(parse_link("pypi=x==").unwrap().unwrap_err().contains("expected a version"));
        assert!(parse_link("pypi=x&python=three").unwrap().unwrap_err().contains("Python version"));
        assert!(parse_link("pypi=x&os=linux").unwrap().unwrap_err().contains("\"os=\""));
        assert_eq!(
            project_url("https://pypi.org/simple/", "Jax_ROCm60.Plugin"),
            "https://pypi.org/simple/jax-rocm60-plugin/"
        );
    }

    #[test]
    fn wheel_names_are_read() {
        let w = wheel_name("jax_rocm60_plugin-0.5.0-cp312-cp312-manylinux_2_28_x86_64.whl").unwrap();
        assert_eq!(
            (w.version.as_str(), w.python[0].as_str(), w.platform[0].as_str()),
            ("0.5.0", "cp312", "manylinux_2_28_x86_64")
        );
        let w = wheel_name("pkg-1.0-1-py2.py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.whl").unwrap();
        assert_eq!(w.python, ["py2", "py3"]);
        assert_eq!(w.platform.len(), 2);
        assert_eq!(wheel_name("pkg-1.0.tar.gz"), None);
        assert_eq!(wheel_name("pkg-1.0-py3-none.whl"), None);
        assert_eq!(wheel_name("pkg--py3-none-any.whl"), None);
    }

    #[test]
    fn the_default_is_manylinux_x86_64_and_the_newest_cpython() {
        assert_eq!(chosen("pypi=torch==2.8.0", TORCH), "torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64.whl");
        let choice = choose(&link("pypi=torch==2.8.0"), &files(TORCH)).unwrap();
        assert_eq!(choice.wheels.len(), 6, "every wheel of the release is offered");
        assert!(choice.why.contains("CPython 3.13, the newest"), "{}", choice.why);
        assert!(choice.why.contains("manylinux x86_64 (the default"), "{}", choice.why);
    }

    #[test]
    fn the_newest_release_skips_pre_releases() {
        assert_eq!(chosen("pypi=torch", TORCH), "torch-2.8.0-cp313-cp313-manylinux_2_28_x86_64.whl");
        assert!(choose(&link("pypi=torch"), &files(TORCH)).unwrap().why.contains("release 2.8.0 (the newest)"));
        assert_eq!(chosen("pypi=x", &["x-0.9-py3-none-any.whl", "x-0.10-py3-none-any.whl"]), "x-0.10-py3-none-any.whl");
        let mut yanked = files(&["x-1.0-py3-none-any.whl", "x-2.0-py3-none-any.whl"]);
        yanked[1].yanked = true;
        let choice = choose(&link("pypi=x"), &yanked).unwrap();
        assert_eq!(choice.version, "1.0");
    }

    #[test]
    fn the_link_names_platform_and_python() {
        assert_eq!(
            chosen("pypi=torch==2.8.0&platform=manylinux_2_28_aarch64", TORCH),
            "torch-2.8.0-cp312-cp312-manylinux_2_28_aarch64.whl"
        );
        assert_eq!(chosen("pypi=torch==2.8.0&python=3.12", TORCH), "torch-2.8.0-cp312-cp312-manylinux_2_28_x86_64.whl");
        assert_eq!(chosen("pypi=torch==2.8.0&platform=win_amd64", TORCH), "torch-2.8.0-cp312-cp312-win_amd64.whl");
        // A system with an older glibc than the wheels need has none.
        let err = choose(&link("pypi=torch==2.8.0&platform=manylinux_2_17_x86_64"), &files(TORCH)).unwrap_err();
        assert!(err.contains("no wheel for manylinux_2_17_x86_64"), "{err}");
        // Legacy tags, stable ABI, and the newest glibc that still fits.
        let names = [
            "p-1.0-cp39-abi3-manylinux2014_x86_64.whl",
            "p-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
            "p-1.0-cp312-cp312-manylinux_2_34_x86_64.whl",
        ];
        assert_eq!(chosen("pypi=p==1.0&python=3.11", &names), "p-1.0-cp39-abi3-manylinux2014_x86_64.whl");
        assert_eq!(
            chosen("pypi=p==1.0&python=3.12&platform=manylinux_2_28_x86_64", &names),
            "p-1.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
        );
        assert_eq!(chosen("pypi=p==1.0&python=3.12", &names), "p-1.0-cp312-cp312-manylinux_2_34_x86_64.whl");
    }

    #[test]
    fn pure_python_is_the_last_resort() {
        let names = ["q-1.0-py3-none-any.whl", "q-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"];
        assert_eq!(chosen("pypi=q==1.0", &names), "q-1.0-cp312-cp312-manylinux_2_28_x86_64.whl");
        let choice = choose(&link("pypi=q==1.0&platform=manylinux_2_28_aarch64"), &files(&names)).unwrap();
        assert_eq!(choice.wheels[choice.chosen].filename, "q-1.0-py3-none-any.whl");
        assert!(choice.why.contains("so the pure-Python wheel"), "{}", choice.why);
    }

    #[test]
    fn missing_releases_say_what_there_is() {
        let err = choose(&link("pypi=torch==9.9"), &files(TORCH)).unwrap_err();
        assert!(err.contains("no wheels of version 9.9") && err.contains("2.8.0"), "{err}");
        let err = choose(&link("pypi=torch==2.8.0"), &files(&["torch-2.8.0.tar.gz"])).unwrap_err();
        assert!(err.contains("has no wheels"), "{err}");
    }
}
