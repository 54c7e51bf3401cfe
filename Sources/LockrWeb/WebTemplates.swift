/// The pages' Mustache templates, kept in the binary so that it needs no files beside it. Every
/// value is HTML-escaped by Mustache; no page has inline script or style (the Content-Security-Policy
/// forbids both). A page follows its person's live events unless rendered with `still` (the admin
/// view, which is about everyone and would lose what the admin reads).
enum WebTemplates {
    static let all: [String: String] = [
        "layout-head": head, "layout-foot": foot, "status": status, "app": app, "missing": missing, "refused": refused,
        "admin-nav": adminNav, "admin-login": adminLogin, "admin": admin, "admin-person": adminPerson,
        "admin-queries": adminQueries, "admin-events": adminEvents, "bar-chart": barChart,
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
        <header class="top"><a class="brand" href="/">lockr</a> <a class="household" href="/admin">Household</a></header>
        <main id="main"{{^still}} data-live{{/still}}>
        <p class="banner" role="status" data-changed hidden>Something changed. <a href="">Show it</a></p>
        """

    static let foot = """
        </main>
        </body>
        </html>
        """

    static let status = """
        {{> layout-head}}
        <h1>{{page.heading}}</h1>
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
        <ul class="apps" aria-label="Apps">
        {{#page.apps}}
        <li class="app {{#open}}is-open{{/open}}{{^open}}is-locked{{/open}}">
        <div class="app-head"><h2>{{name}}</h2><span class="badge badge-{{badge}}">{{badge}}</span>{{#countdown}}<span class="chip" data-countdown="{{seconds}}">{{text}}</span>{{/countdown}}</div>
        <p>{{text}}</p>
        <p class="quiet">{{used}}</p>
        <p><a class="more" href="{{page}}" aria-label="{{pageLabel}}">{{#open}}Details{{/open}}{{^open}}Ways to open it{{/open}}</a></p>
        </li>
        {{/page.apps}}
        {{^page.apps}}
        <li class="app">No app is guarded or closed now.</li>
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
        <p class="back"><a href="/">{{page.back}}</a></p>
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
        <noscript><p>Recording needs JavaScript, which this browser has off for this page: turn it on here to say the sentence.</p></noscript>
        {{#fallbackWait}}
        <form class="gate" method="post" action="/apps/{{page.app}}/fallback">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <button type="submit" class="secondary">Type it instead (after a wait of {{.}})</button>
        </form>
        {{/fallbackWait}}
        {{#typedIn}}<p class="quiet" data-reload-in="{{seconds}}">{{text}}</p>{{/typedIn}}
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
        <noscript><p>The hold needs JavaScript, which this browser has off for this page: turn it on here to use it.</p></noscript>
        </section>
        {{/page.emergency}}
        <p class="quiet limits">DNS cannot close a connection an app already has open: a relock takes effect as the app looks its names up again (lockr keeps their lifetime short).</p>
        {{> layout-foot}}
        """

    static let adminNav = """
        <nav class="admin-nav" aria-label="Admin">
        <a href="/admin">People and devices</a> <a href="/admin/queries">Queries</a> <a href="/admin/events">Events</a>
        <form method="post" action="/admin/logout"><input type="hidden" name="csrf" value="{{page.csrf}}"><button type="submit" class="secondary">Sign out</button></form>
        </nav>
        """

    static let adminLogin = """
        {{> layout-head}}
        <h1>Household</h1>
        {{#error}}<p class="banner" role="alert">{{.}}</p>{{/error}}
        {{#hasPIN}}
        <form class="gate" method="post" action="/admin/login">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="pin">The household's PIN</label>
        <input id="pin" name="pin" type="password" inputmode="numeric" autocomplete="current-password" required>
        <button type="submit">Sign in</button>
        </form>
        <p class="quiet">Wrong PINs count as at the command line: after 5 in a row, each waits longer.</p>
        {{/hasPIN}}
        {{^hasPIN}}
        <p>The admin view is behind the household's PIN, and none is set: set one with <code>lockr pin set</code> on the machine lockr runs on.</p>
        {{/hasPIN}}
        {{> layout-foot}}
        """

    static let admin = """
        {{> layout-head}}
        <h1>Household</h1>
        {{> admin-nav}}
        {{#page.error}}<p class="banner" role="alert">{{.}}</p>{{/page.error}}
        <h2 class="section">People</h2>
        <ul class="apps">
        {{#page.people}}
        <li class="app">
        <div class="app-head"><h3><a href="{{link}}">{{name}}</a></h3></div>
        <p class="quiet">{{summary}}</p>
        <ul class="badges">{{#apps}}<li><span class="badge badge-{{badge}}">{{name}}: {{badge}}</span></li>{{/apps}}</ul>
        </li>
        {{/page.people}}
        </ul>
        <h2 class="section">Devices</h2>
        {{#page.hasDevices}}
        <div class="scroll"><table class="data">
        <thead><tr><th scope="col">Address</th><th scope="col">MAC</th><th scope="col">Person</th><th scope="col">Known by</th><th scope="col">Last seen</th><th scope="col">State</th></tr></thead>
        <tbody>{{#page.devices}}<tr><td data-label="Address">{{address}}</td><td data-label="MAC">{{mac}}</td><td data-label="Person">{{^assignable}}{{person}} (config file){{/assignable}}{{#assignable}}<form class="inline" method="post" action="/admin/devices"><input type="hidden" name="csrf" value="{{page.csrf}}"><input type="hidden" name="device" value="{{key}}"><select name="person" aria-label="Person of {{key}}">{{#choices}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/choices}}</select><label for="phrase-{{key}}">Their sentence, if the move loosens</label><input id="phrase-{{key}}" name="phrase" type="text" autocomplete="off" autocapitalize="off" spellcheck="false"><button type="submit">Assign</button></form>{{/assignable}}</td><td data-label="Known by">{{identifiedBy}}</td><td data-label="Last seen" class="time">{{lastSeen}}</td><td data-label="State">{{state}}</td></tr>{{/page.devices}}</tbody>
        </table></div>
        <p class="quiet">A device no person's <code>devices</code> names is the default person's until you assign it: by its MAC address where lockr knows it (through dnsmasq's <code>add-mac</code> or the neighbour table), else by its IP address, which a phone may change. A move to a person whose limits are looser is a loosening change of the person the device leaves: it costs their gate (their sentence in the field under the person) and waits as their changes wait, listed on their page (<code>lockr pending cancel</code> takes it back). Devices the config file gives a person are changed there.</p>
        {{/page.hasDevices}}
        {{^page.hasDevices}}<p>No device asked lockr lately.</p>{{/page.hasDevices}}
        <h2 class="section">Backends</h2>
        {{#page.hasBackends}}
        <ul class="plain">{{#page.backends}}<li><strong>{{name}}</strong>: {{state}}; {{detail}}</li>{{/page.backends}}</ul>
        {{/page.hasBackends}}
        {{^page.hasBackends}}<p>No backend: lockr answers DNS itself.</p>{{/page.hasBackends}}
        {{> layout-foot}}
        """

    static let barChart = """
        <figure class="chart">
        <div class="chart-scroll" tabindex="0" role="region" aria-label="{{title}} (scrolls sideways on a narrow screen)">
        <svg viewBox="0 0 {{width}} {{height}}" width="{{width}}" height="{{height}}" role="img" aria-label="{{title}}, up to {{scaleLabel}}">
        {{#bars}}<rect class="bar bar-{{tone}}" x="{{x}}" y="{{y}}" width="{{width}}" height="{{height}}"><title>{{label}}: {{value}}</title></rect><text class="bar-label" x="{{labelX}}" y="150" text-anchor="middle">{{label}}</text>{{/bars}}
        {{#limit}}<line class="limit" x1="0" x2="{{width}}" y1="{{y}}" y2="{{y}}"></line>{{/limit}}
        </svg>
        </div>
        <figcaption>{{title}}</figcaption>
        </figure>
        """

    static let adminPerson = """
        {{> layout-head}}
        <h1>{{page.person}}</h1>
        {{> admin-nav}}
        {{#page.error}}<p class="banner" role="alert">{{.}}</p>{{/page.error}}
        {{#page.status}}
        <p class="summary">{{summary}} · <time>{{now}}</time></p>
        {{#protectionOff}}<p class="banner" role="alert">Protection off: {{.}}</p>{{/protectionOff}}
        <ul class="apps" aria-label="Apps">
        {{#apps}}<li class="app"><div class="app-head"><h2>{{name}}</h2><span class="badge badge-{{badge}}">{{badge}}</span></div><p>{{text}}</p><p class="quiet">{{used}}</p></li>{{/apps}}
        </ul>
        {{#hasPending}}<h2 class="section">Waiting to apply</h2><ul class="pending">{{#pending}}<li>{{.}}</li>{{/pending}}</ul>{{/hasPending}}
        {{/page.status}}
        <h2 class="section">Use</h2>
        {{#page.days}}{{> bar-chart}}{{/page.days}}
        {{#page.apps}}{{> bar-chart}}{{/page.apps}}
        <p>{{page.streaks}}</p>
        <details><summary>The days in numbers</summary>
        <div class="scroll"><table class="data">
        <thead><tr><th scope="col">Day</th><th scope="col">Used</th><th scope="col">Budget</th><th scope="col">Blocked queries</th><th scope="col">Gates</th></tr></thead>
        <tbody>{{#page.dayRows}}<tr><td data-label="Day" class="time">{{day}}</td><td data-label="Used">{{used}}</td><td data-label="Budget">{{budget}}</td><td data-label="Blocked queries">{{blocked}}</td><td data-label="Gates">{{gates}}</td></tr>{{/page.dayRows}}</tbody>
        </table></div>
        </details>
        <h2 class="section">Mode and budget</h2>
        <form class="gate" method="post" action="/admin/people/{{page.person}}/mode">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <label for="mode">Mode</label>
        <select id="mode" name="mode">{{#page.modes}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/page.modes}}</select>
        <label for="budget">Daily budget (minutes, time mode)</label>
        <input id="budget" name="budget" type="number" min="0" max="1440" value="{{page.budgetMinutes}}">
        <label for="window">Window (minutes, hourly and extreme)</label>
        <input id="window" name="window" type="number" min="1" max="60" value="{{page.windowMinutes}}">
        <label for="mode-phrase">Their sentence, where a loosening change asks for it</label>
        <input id="mode-phrase" name="phrase" type="text" autocomplete="off" autocapitalize="off" spellcheck="false">
        <button type="submit">Change</button>
        </form>
        <p class="quiet">Tightening applies at once; loosening costs {{page.person}}'s gate and waits for the commitment delay, as at the command line.</p>
        <h2 class="section">Profiles</h2>
        {{#page.hasProfiles}}
        <ul class="plain">
        {{#page.profiles}}<li><form class="inline" method="post" action="/admin/people/{{page.person}}/profiles/{{name}}"><input type="hidden" name="csrf" value="{{page.csrf}}"><input type="hidden" name="action" value="{{action}}"><strong>{{name}}</strong> {{text}} <button type="submit" class="secondary">{{actionLabel}}</button></form></li>{{/page.profiles}}
        </ul>
        {{/page.hasProfiles}}
        {{^page.hasProfiles}}<p>No profile (<code>lockr profile add</code> makes one).</p>{{/page.hasProfiles}}
        <h2 class="section">Schedules</h2>
        {{#page.hasSchedules}}
        <ul class="plain">
        {{#page.schedules}}<li><form class="inline" method="post" action="/admin/people/{{page.person}}/schedules/{{name}}/remove"><input type="hidden" name="csrf" value="{{page.csrf}}"><strong>{{name}}</strong> {{text}} <button type="submit" class="secondary" aria-label="Remove schedule {{name}}">Remove</button></form></li>{{/page.schedules}}
        </ul>
        {{/page.hasSchedules}}
        {{^page.hasSchedules}}<p>No schedule.</p>{{/page.hasSchedules}}
        <details><summary>Add a schedule</summary>
        <form class="gate" method="post" action="/admin/people/{{page.person}}/schedules">
        <input type="hidden" name="csrf" value="{{page.csrf}}">
        <label for="s-name">Name</label>
        <input id="s-name" name="name" type="text" required autocomplete="off" placeholder="bedtime">
        <label for="s-days">Days</label>
        <input id="s-days" name="days" type="text" value="daily" autocomplete="off" aria-describedby="s-days-help">
        <p class="quiet" id="s-days-help">daily, mon-fri, sat,sun, ...</p>
        <label for="s-from">From</label>
        <input id="s-from" name="from" type="time" required>
        <label for="s-to">To (before From: the next day)</label>
        <input id="s-to" name="to" type="time" required>
        <label for="s-block">Blocks (apps or groups, separated by commas)</label>
        <input id="s-block" name="block" type="text" required autocomplete="off" placeholder="social, tiktok">
        <button type="submit">Add</button>
        </form>
        </details>
        {{> layout-foot}}
        """

    static let adminQueries = """
        {{> layout-head}}
        <h1>Queries</h1>
        {{> admin-nav}}
        <form class="filters" method="get" action="/admin/queries">
        <label for="q-person">Person</label>
        <select id="q-person" name="person">{{#page.people}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/page.people}}</select>
        <label for="q-client">Client</label>
        <input id="q-client" name="client" type="text" value="{{page.client}}" autocomplete="off">
        <label for="q-since">Since</label>
        <select id="q-since" name="since">{{#page.since}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/page.since}}</select>
        <label class="check"><input name="blocked" type="checkbox"{{#page.blocked}} checked{{/page.blocked}}> blocked only</label>
        <button type="submit">Show</button>
        </form>
        <p class="quiet">{{page.note}}</p>
        {{#page.hasEntries}}
        <div class="scroll"><table class="data">
        <thead><tr><th scope="col">Time</th><th scope="col">Client</th><th scope="col">Person</th><th scope="col">Name</th><th scope="col">Type</th><th scope="col">Outcome</th><th scope="col">Why</th></tr></thead>
        <tbody>{{#page.entries}}<tr><td data-label="Time" class="time">{{at}}</td><td data-label="Client">{{client}}</td><td data-label="Person">{{person}}</td><td data-label="Name">{{name}}</td><td data-label="Type">{{type}}</td><td data-label="Outcome">{{outcome}}</td><td data-label="Why">{{reason}}</td></tr>{{/page.entries}}</tbody>
        </table></div>
        {{/page.hasEntries}}
        {{^page.hasEntries}}<p>No query matches.</p>{{/page.hasEntries}}
        {{> layout-foot}}
        """

    static let adminEvents = """
        {{> layout-head}}
        <h1>Events</h1>
        {{> admin-nav}}
        <form class="filters" method="get" action="/admin/events">
        <label for="e-person">Person</label>
        <select id="e-person" name="person">{{#page.people}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/page.people}}</select>
        <button type="submit">Show</button>
        </form>
        {{#page.hasEvents}}
        <div class="scroll"><table class="data">
        <thead><tr><th scope="col">Time</th><th scope="col">Person</th><th scope="col">Event</th><th scope="col">App</th><th scope="col">Detail</th></tr></thead>
        <tbody>{{#page.events}}<tr><td data-label="Time" class="time">{{local}}</td><td data-label="Person">{{person}}</td><td data-label="Event">{{type}}</td><td data-label="App">{{app}}</td><td data-label="Detail">{{detail}}</td></tr>{{/page.events}}</tbody>
        </table></div>
        {{/page.hasEvents}}
        {{^page.hasEvents}}<p>No event in the last 7 days.</p>{{/page.hasEvents}}
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
