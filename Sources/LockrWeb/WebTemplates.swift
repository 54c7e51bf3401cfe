/// The pages' Mustache templates, kept in the binary so that it needs no files beside it. Every
/// value is HTML-escaped by Mustache; no page has inline script or style (the Content-Security-Policy
/// forbids both).
enum WebTemplates {
    static let all: [String: String] = [
        "layout-head": head, "layout-foot": foot, "status": status, "app": app, "missing": missing, "refused": refused,
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
        <main id="main" data-live>
        <p class="banner" role="status" data-changed hidden>Something changed. <a href="">Show it</a></p>
        """

    static let foot = """
        </main>
        </body>
        </html>
        """

    static let status = """
        {{> layout-head}}
        <h1>{{page.person}}</h1>
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
        <div class="app-head"><h2>{{name}}</h2><span class="badge badge-{{badge}}">{{badge}}</span>{{#countdown}}<span class="chip" data-countdown="{{seconds}}">{{text}}</span>{{/countdown}}</div>
        <p>{{text}}</p>
        <p class="quiet">{{used}}</p>
        <p><a class="more" href="{{page}}" aria-label="{{pageLabel}}">{{#open}}Details{{/open}}{{^open}}Ways to open it{{/open}}</a></p>
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

    static let app = """
        {{> layout-head}}
        <p class="back"><a href="/">Back to {{page.person}}</a></p>
        <div class="app-head"><h1>{{page.name}}</h1><span class="badge badge-{{page.badge}}">{{page.badge}}</span>{{#page.countdown}}<span class="chip" data-countdown="{{seconds}}">{{text}}</span>{{/page.countdown}}</div>
        {{#page.error}}
        <p class="banner" role="alert">{{.}}</p>
        {{/page.error}}
        <p class="why">{{page.why}}{{#page.until}} · {{.}}{{/page.until}}</p>
        <p class="quiet">{{page.used}}</p>
        {{#page.suggestion}}
        <aside class="suggestion" aria-labelledby="meanwhile"><h2 id="meanwhile">Meanwhile</h2><p>{{.}}</p></aside>
        {{/page.suggestion}}
        {{#page.cooldown}}
        <p class="banner" role="status" data-reload-in="{{seconds}}">{{text}}</p>
        {{/page.cooldown}}
        {{#page.noWayOut}}
        <p>{{.}}</p>
        {{/page.noWayOut}}
        {{#page.puzzles}}
        <section class="step" aria-labelledby="puzzles-title">
        <h2 id="puzzles-title">Puzzles</h2>
        {{#solved}}<p>Solved: open it below within 5 minutes.</p>{{/solved}}
        {{^solved}}
        {{#issued}}
        <form class="gate" method="post" action="/apps/{{page.app}}/answer">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <input type="hidden" name="id" value="{{id}}">
        <p class="prompt">{{prompt}}</p>
        <p class="quiet">{{difficulty}}; answer by {{expires}}</p>
        <label for="answer-{{id}}">{{#board}}Your move, such as Qh7 or d1h5{{/board}}{{^board}}Your answer{{/board}}</label>
        <input id="answer-{{id}}" name="answer" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required{{^board}} inputmode="numeric"{{/board}}>
        <button type="submit">Answer</button>
        {{#board}}
        <table class="board" data-board="answer-{{id}}" data-fen="{{fen}}">
        <caption>{{caption}}: choose a piece, then its square</caption>
        <tbody>
        {{#ranks}}
        <tr><th scope="row">{{label}}</th>{{#squares}}<td><button type="button" class="square {{shade}}" data-square="{{name}}" data-piece="{{letter}}" aria-label="{{name}}{{#piece}}, {{.}}{{/piece}}" aria-pressed="false">{{glyph}}</button></td>{{/squares}}</tr>
        {{/ranks}}
        <tr><td></td>{{#files}}<th scope="col">{{.}}</th>{{/files}}</tr>
        </tbody>
        </table>
        {{/board}}
        </form>
        {{/issued}}
        {{^hasIssued}}
        <form class="gate" method="post" action="/apps/{{page.app}}/puzzles">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <p>The gate asks {{asked}} first.</p>
        <button type="submit">Show the puzzle</button>
        </form>
        {{/hasIssued}}
        {{/solved}}
        </section>
        {{/page.puzzles}}
        {{#page.voice}}
        <section class="step" aria-labelledby="voice-title">
        <h2 id="voice-title">Say the sentence{{#orTyped}}, or type it below{{/orTyped}}</h2>
        {{#heard}}<p>Heard: open it below within 5 minutes.</p>{{/heard}}
        {{^heard}}
        <p class="sentence">{{sentence}}</p>
        <div class="gate" data-voice data-csrf="{{page.csrf}}" hidden>
        <button type="button" data-record hidden>Record</button>
        <label for="clip">Or send a recording of it</label>
        <input id="clip" type="file" accept="audio/*" capture data-clip>
        <p role="status" aria-live="polite" data-voice-status></p>
        </div>
        <noscript><p>Recording needs JavaScript; <code>lockr unlock --voice</code> at a terminal does the same.</p></noscript>
        {{#fallbackWait}}
        <form class="gate" method="post" action="/apps/{{page.app}}/fallback">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <button type="submit" class="secondary">Type it instead (after a wait of {{.}})</button>
        </form>
        {{/fallbackWait}}
        {{#typedFrom}}<p class="quiet">Typing it is taken from {{.}}.</p>{{/typedFrom}}
        {{/heard}}
        </section>
        {{/page.voice}}
        {{#page.windows}}
        <section class="step" aria-labelledby="open-title">
        <h2 id="open-title">Open it</h2>
        <form class="gate" method="post" action="/apps/{{page.app}}/open">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        {{#sentence}}
        <label for="phrase">Type this sentence:</label>
        <p class="sentence" id="sentence">{{.}}</p>
        <input id="phrase" name="phrase" type="text" autocomplete="off" autocapitalize="off" spellcheck="false" required aria-describedby="sentence">
        {{/sentence}}
        {{#buttons}}<button type="submit" name="action" value="{{action}}">{{label}}</button>{{/buttons}}
        </form>
        </section>
        {{/page.windows}}
        {{#page.emergency}}
        <section class="step" aria-labelledby="emergency-title">
        <h2 id="emergency-title">Emergency</h2>
        <p>{{text}}</p>
        <div class="gate" data-emergency data-csrf="{{page.csrf}}" hidden>
        <button type="button" class="hold" data-hold data-seconds="{{seconds}}">Press and hold for {{seconds}} s</button>
        <p role="status" aria-live="polite" data-hold-status></p>
        </div>
        <noscript><p>The hold needs JavaScript; <code>lockr emergency</code> at a terminal does the same.</p></noscript>
        </section>
        {{/page.emergency}}
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
