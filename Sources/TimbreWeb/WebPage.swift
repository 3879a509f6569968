/// The control page's files, compiled into the binary (SwiftPM's `embedInCode`): served as
/// they are, so the page works wherever `timbre` is copied, with no network and no build step.
package enum WebPage {
    package static var assets: [String: WebControlServer.Asset] {
        let html = WebControlServer.Asset(contentType: "text/html; charset=utf-8", bytes: PackageResources.index_html)
        return [
            "/": html, "/index.html": html,
            "/app.js": .init(contentType: "text/javascript; charset=utf-8", bytes: PackageResources.app_js),
            "/app.css": .init(contentType: "text/css; charset=utf-8", bytes: PackageResources.app_css),
        ]
    }
}
