/// The editor's page, script and style sheet: real files beside this one (`editor.html`,
/// `editor.js`, `editor.css`), embedded in the program when it is built (SwiftPM resources), so
/// that they are read, checked and served as what they are, and the installed program needs no
/// files beside it.
enum EditAssets {
    static let page = String(decoding: PackageResources.editor_html, as: UTF8.self)
    static let script = PackageResources.editor_js
    static let style = PackageResources.editor_css
}
