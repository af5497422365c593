"""The browser components, Python and JavaScript side by side: the chart element (plot, plot_fit, preload), the head
switch, a chart's words for a screen reader (chart_text), the table, the keyboard and reader aids (access), the
reconnection watch (reconnect). They draw what they are given: figures from ui.figures, words from ui.words."""
