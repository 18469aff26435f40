// The GET /graphql page: GraphiQL against this same URL, with the example query and variables
// that the page carries (element #graphiql-defaults).
"use strict";
(function () {
  const defaults = JSON.parse(document.getElementById("graphiql-defaults").textContent);
  const url = window.location.origin + window.location.pathname;
  let firstVisit = true;
  try {
    firstVisit = window.localStorage.getItem("graphiql:tabState") === null;
  } catch (e) {
    // no storage: GraphiQL keeps nothing either
  }
  const props = {
    fetcher: GraphiQL.createFetcher({ url: url }),
    // the example on a first visit; later GraphiQL restores the user's own tabs
    defaultTabs: [{ query: defaults.query, variables: defaults.variables }],
    defaultEditorToolsVisibility: true,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: false,
  };
  if (firstVisit) {
    props.variables = defaults.variables; // GraphiQL 3 fills the editor from this prop only
  }
  const element = document.getElementById("graphiql");
  element.style.height = "100vh"; // through the DOM: the page's policy allows no style attribute
  ReactDOM.createRoot(element).render(
    React.createElement(GraphiQL, props),
  );
})();
