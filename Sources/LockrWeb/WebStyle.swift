/// The pages' one stylesheet: mobile first, light and dark after the device's setting, text and
/// badges at WCAG AA contrast or better, a visible focus ring.
enum WebStyle {
    static let css = """
        :root {
          color-scheme: light dark;
          --bg: #fafafa; --fg: #1b1b1f; --muted: #4a4a55; --card: #ffffff; --line: #d4d4dc;
          --open: #0b6b2e; --open-bg: #dff3e5; --locked: #8a1c1c; --locked-bg: #fbe3e3;
          --accent: #2a4fb8; --banner: #7a4a00; --banner-bg: #fff1d6;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --bg: #121216; --fg: #ececf1; --muted: #b4b4c0; --card: #1c1c22; --line: #34343e;
            --open: #8ee0a8; --open-bg: #123321; --locked: #ffb3b3; --locked-bg: #3a1616;
            --accent: #9db5ff; --banner: #ffd58a; --banner-bg: #3a2a08;
          }
        }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--fg);
          font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
        .top { padding: 0.75rem 1rem; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
        main { max-width: 40rem; margin: 0 auto; padding: 1rem; }
        h1 { font-size: 1.6rem; margin: 0.5rem 0 0.25rem; }
        h2 { font-size: 1.1rem; margin: 0; }
        .section { margin-top: 1.5rem; }
        .summary, .quiet { color: var(--muted); }
        .quiet { font-size: 0.9rem; margin: 0.25rem 0 0; }
        .banner { background: var(--banner-bg); color: var(--banner); padding: 0.75rem 1rem; border-radius: 0.5rem;
          font-weight: 600; }
        .apps, .pending { list-style: none; padding: 0; margin: 1rem 0; display: grid; gap: 0.75rem; }
        .app { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem; padding: 0.75rem 1rem; }
        .app p { margin: 0.35rem 0 0; }
        .app-head { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
        .app-head h2 { margin-right: auto; }
        .badge, .chip { border-radius: 999px; padding: 0.1rem 0.6rem; font-size: 0.85rem; font-weight: 600; }
        .badge-open { background: var(--open-bg); color: var(--open); }
        .badge-locked, .badge-schedule, .badge-profile { background: var(--locked-bg); color: var(--locked); }
        .chip { border: 1px solid var(--open); color: var(--open); font-variant-numeric: tabular-nums; }
        .ring { margin: 1rem 0; display: flex; align-items: center; gap: 1rem; }
        .ring svg { width: 5rem; height: 5rem; }
        .ring-track { stroke: var(--line); }
        .ring-used { stroke: var(--accent); }
        .limits { margin-top: 2rem; }
        .gate { margin-top: 0.75rem; display: grid; gap: 0.5rem; }
        .gate label { font-weight: 600; }
        .sentence { font-style: italic; margin: 0; user-select: none; -webkit-user-select: none; }
        .gate input[type=text] { font: inherit; padding: 0.6rem; border: 1px solid var(--muted); border-radius: 0.5rem;
          background: var(--bg); color: var(--fg); width: 100%; }
        .gate button { font: inherit; font-weight: 600; padding: 0.6rem 1rem; border: 0; border-radius: 0.5rem;
          background: var(--accent); color: var(--bg); min-height: 2.75rem; cursor: pointer; }
        .gate button.secondary { background: transparent; color: var(--accent); border: 1px solid var(--accent); }
        .back { margin: 0; }
        .why { font-weight: 600; margin-bottom: 0; }
        .step, .suggestion { background: var(--card); border: 1px solid var(--line); border-radius: 0.75rem;
          padding: 0.75rem 1rem; margin-top: 1rem; }
        .suggestion { border-left: 4px solid var(--open); }
        .suggestion p, .step p { margin: 0.35rem 0 0; }
        .prompt { font-size: 1.15rem; font-weight: 600; }
        .board { border-collapse: collapse; margin-top: 0.5rem; justify-self: start; }
        .board caption { text-align: left; color: var(--muted); font-size: 0.9rem; padding-bottom: 0.25rem; }
        .board th { font-weight: 400; color: var(--muted); font-size: 0.8rem; padding: 0 0.3rem; }
        .board td { padding: 0; }
        .gate .board button.square { width: 2.5rem; height: 2.5rem; min-height: 0; font-size: 1.8rem; line-height: 1;
          border: 0; border-radius: 0; padding: 0; color: #111; display: block; cursor: pointer; }
        .gate .board button.light { background: #f0d9b5; }
        .gate .board button.dark { background: #b58863; }
        .gate .board button.square[aria-pressed=true] { box-shadow: inset 0 0 0 4px #2a4fb8; }
        .gate .board button.square:focus-visible { outline: 3px solid var(--accent); outline-offset: -3px; }
        .hold { touch-action: none; user-select: none; -webkit-user-select: none; }
        code { font-size: 0.9em; }
        .top { display: flex; justify-content: space-between; align-items: center; }
        .household { font-size: 0.9rem; }
        .admin-nav { display: flex; flex-wrap: wrap; gap: 0.75rem 1rem; align-items: center; margin: 0.5rem 0 1rem; }
        .admin-nav form { margin-left: auto; }
        .admin-nav button, .inline button, .filters button { font: inherit; padding: 0.4rem 0.8rem; border-radius: 0.5rem;
          border: 1px solid var(--accent); background: transparent; color: var(--accent); cursor: pointer; min-height: 2.5rem; }
        .filters button { background: var(--accent); color: var(--bg); }
        .badges, .plain { list-style: none; padding: 0; margin: 0.5rem 0 0; display: flex; flex-wrap: wrap; gap: 0.4rem; }
        .plain { display: grid; gap: 0.5rem; }
        .app h3 { font-size: 1.1rem; margin: 0; }
        .scroll { overflow-x: auto; }
        .data { border-collapse: collapse; font-size: 0.9rem; width: 100%; }
        .data th, .data td { text-align: left; padding: 0.35rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
        .data .time { white-space: nowrap; }
        /* On a phone each row is a card of labelled lines: no table runs off the screen. */
        @media (max-width: 40rem) {
          .data thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
          .data, .data tbody, .data tr, .data td { display: block; width: auto; }
          .data tr { border-bottom: 1px solid var(--line); padding: 0.4rem 0; }
          .data td { border: 0; padding: 0.1rem 0; overflow-wrap: anywhere; }
          .data td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
          .data td:empty { display: none; }
        }
        .filters { display: flex; flex-wrap: wrap; gap: 0.5rem 0.75rem; align-items: center; margin-bottom: 0.5rem; }
        .inline { display: grid; gap: 0.35rem; justify-items: start; }
        .inline label { font-size: 0.8rem; color: var(--muted); }
        .filters input[type=text], .filters select, .gate select, .gate input[type=number], .gate input[type=password], .gate input[type=time],
        .inline select, .inline input[type=text] {
          font: inherit; padding: 0.5rem; border: 1px solid var(--muted); border-radius: 0.5rem; background: var(--bg); color: var(--fg); }
        .check { display: flex; gap: 0.35rem; align-items: center; }
        .chart { margin: 0.5rem 0 1rem; }
        .chart-scroll { overflow-x: auto; }
        .chart svg { display: block; }
        .chart figcaption { color: var(--muted); font-size: 0.9rem; }
        .bar-within { fill: var(--accent); }
        .bar-over { fill: var(--locked); }
        .bar-label { fill: var(--muted); font-size: 10px; }
        .limit { stroke: var(--open); stroke-width: 1.5; stroke-dasharray: 4 3; }
        details { margin: 0.5rem 0 1rem; }
        @media (max-width: 26rem) { .gate .board button.square { width: 2.3rem; height: 2.3rem; font-size: 1.6rem; } }
        @media (min-width: 48rem) { main { padding: 2rem; } h1 { font-size: 2rem; } }
        """
}
