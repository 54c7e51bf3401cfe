/// The pages' Mustache templates, kept in the binary so that it needs no files beside it. Every
/// value is HTML-escaped by Mustache; no page has inline script or style (the Content-Security-Policy
/// forbids both).
enum WebTemplates {
    static let all: [String: String] = [
        "layout-head": head, "layout-foot": foot, "status": status, "missing": missing, "refused": refused,
    ]

    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>{{title}} · lockr</title>
        <link rel="stylesheet" href="/static/lockr.css">
        <script src="/static/lockr.js" defer></script>
        </head>
        <body>
        <header class="top"><a class="brand" href="/">lockr</a></header>
        <main id="main">
        """

    static let foot = """
        </main>
        </body>
        </html>
        """

    static let status = """
        {{> layout-head}}
        <h1>{{page.person}}</h1>
        {{#page.error}}
        <p class="banner" role="alert">{{.}}</p>
        {{/page.error}}
        <p class="summary">{{page.summary}} · <time>{{page.now}}</time></p>
        {{#page.protectionOff}}
        <p class="banner" role="alert">Protection off: {{.}}</p>
        {{/page.protectionOff}}
        {{#page.cooldown}}
        <p class="banner" role="status">{{.}}</p>
        {{/page.cooldown}}
        {{#page.budget}}
        <figure class="ring">
        <svg viewBox="0 0 42 42" role="img" aria-labelledby="ring-label">
        <circle class="ring-track" cx="21" cy="21" r="15.9155" fill="none" stroke-width="4"></circle>
        <circle class="ring-used" cx="21" cy="21" r="15.9155" fill="none" stroke-width="4" stroke-dasharray="{{dash}}" stroke-dashoffset="25"></circle>
        </svg>
        <figcaption id="ring-label">{{label}}</figcaption>
        </figure>
        {{/page.budget}}
        <ul class="apps" aria-label="Guarded apps">
        {{#page.apps}}
        <li class="app {{#open}}is-open{{/open}}{{^open}}is-locked{{/open}}">
        <div class="app-head"><h2>{{name}}</h2><span class="badge badge-{{badge}}">{{badge}}</span>{{#countdown}}<span class="chip">{{.}}</span>{{/countdown}}</div>
        <p>{{text}}</p>
        <p class="quiet">{{used}}</p>
        {{#unlock}}
        <form class="gate" method="post" action="/unlock">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <input type="hidden" name="app" value="{{app}}">
        {{#sentence}}
        <label for="phrase-{{app}}">Type this sentence to open it:</label>
        <p class="sentence" id="sentence-{{app}}">{{.}}</p>
        <input id="phrase-{{app}}" name="phrase" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="sentence-{{app}}">
        {{/sentence}}
        <button type="submit">{{label}}</button>
        </form>
        {{/unlock}}
        {{#gateNote}}<p class="quiet">{{.}}</p>{{/gateNote}}
        </li>
        {{/page.apps}}
        {{^page.apps}}
        <li class="app">No app is guarded for {{page.person}}.</li>
        {{/page.apps}}
        </ul>
        {{#page.hasPending}}
        <h2 class="section">Waiting to apply</h2>
        <ul class="pending">{{#page.pending}}<li>{{.}}</li>{{/page.pending}}</ul>
        {{/page.hasPending}}
        <p class="quiet limits">DNS cannot close a connection an app already has open: a relock takes effect as the app looks its names up again (lockr keeps their lifetime short).</p>
        {{> layout-foot}}
        """

    static let refused = """
        {{> layout-head}}
        <h1>Not sent</h1>
        <p role="alert">{{message}}</p>
        <p><a href="/">Back to your status</a>, which gives the form again.</p>
        {{> layout-foot}}
        """

    static let missing = """
        {{> layout-head}}
        <h1>Not here</h1>
        <p>lockr has no page at this address. <a href="/">Your status</a>.</p>
        {{> layout-foot}}
        """
}
