// The GET /graphql page: GraphiQL against this same URL, with the example query and variables
// that the page carries (element #graphiql-defaults).
"use strict";
(function () {
  const defaults = JSON.parse(document.getElementById("graphiql-defaults").textContent);
  const url = window.location.origin + window.location.pathname;

  // The tab the user left active, from the tabs GraphiQL stored ("graphiql:tabState"); null on
  // a first visit (or without storage, or with stored tabs GraphiQL would not restore either).
  function storedActiveTab() {
    try {
      const state = JSON.parse(window.localStorage.getItem("graphiql:tabState"));
      const tab = state && Array.isArray(state.tabs) ? state.tabs[state.activeTabIndex] : null;
      return tab && typeof tab === "object" ? tab : null;
    } catch (e) {
      return null; // no storage, or not JSON: GraphiQL starts from defaultTabs
    }
  }

  const props = {
    fetcher: GraphiQL.createFetcher({ url: url }),
    // the example on a first visit; later GraphiQL restores the user's own tabs
    defaultTabs: [{ query: defaults.query, variables: defaults.variables }],
    defaultEditorToolsVisibility: true,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
  };
  const active = storedActiveTab();
  if (active === null) {
    props.variables = defaults.variables; // GraphiQL 3 fills the editor from this prop only
  } else {
    // GraphiQL 3 makes active the stored tab whose query and variables equal these props (else
    // its own "graphiql:query"/"graphiql:variables", and it never wrote the example's variables,
    // which filled the editor without a change) and adds a new tab when none does: without them
    // a reload opened a second tab with the stored query and no variables. So name the tab left
    // active; this also fills the editors with it.
    props.query = typeof active.query === "string" ? active.query : "";
    props.variables = typeof active.variables === "string" ? active.variables : "";
  }
  const element = document.getElementById("graphiql");
  element.style.height = "100vh"; // through the DOM: the page's policy allows no style attribute
  ReactDOM.createRoot(element).render(
    React.createElement(GraphiQL, props),
  );
})();
