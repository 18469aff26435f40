// A small client of the Canasta Referee: POST /v1/legal-actions with fetch, typed with the
// types generated from the service's OpenAPI document (schema.d.ts: `npm run generate`).
//
//   import { legalActions, exampleState } from "./example.js";
//   const answer = await legalActions("http://127.0.0.1:8000", exampleState);
//   answer.actions  // [{ type: "draw", seat: 0 }, { type: "take-pile", cards: [...], ... }]
import type { components, paths } from "./schema";

type Operation = paths["/v1/legal-actions"]["post"];
export type State = components["schemas"]["State"];
export type LegalActionsRequest = Operation["requestBody"]["content"]["application/json"];
export type LegalActions = Operation["responses"][200]["content"]["application/json"];
export type Problem = Operation["responses"][422]["content"]["application/problem+json"];
export type Action = LegalActions["actions"][number];

/** A refusal: the service's RFC 9457 problem document, with its stable `code`. */
export class RefereeError extends Error {
  readonly status: number;
  readonly problem: Problem;

  constructor(status: number, problem: Problem) {
    super(`${problem.code}: ${problem.detail}`);
    this.status = status;
    this.problem = problem;
  }
}

/** The actions the seat to move may take now (`language`: "de" for German messages). */
export async function legalActions(
  baseUrl: string,
  state: State,
  language: "en" | "de" = "en",
): Promise<LegalActions> {
  const request: LegalActionsRequest = { state };
  const response = await fetch(new URL("/v1/legal-actions", baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", "accept-language": language },
    body: JSON.stringify(request),
  });
  if (!response.ok) {
    throw new RefereeError(response.status, (await response.json()) as Problem);
  }
  return (await response.json()) as LegalActions;
}

/** The cards of the actions, e.g. to highlight the playable cards of a hand. */
export function playableCards(answer: LegalActions): Set<string> {
  const cards = new Set<string>();
  for (const action of answer.actions) {
    if ("cards" in action && action.cards) action.cards.forEach((c) => cards.add(c));
    if ("card" in action) cards.add(action.card);
  }
  return cards;
}

/** A classic four-player table as seat 0 sees it: the others' hands and the stock by size. */
export const exampleState: State = {
  variant: "classic",
  options: { players: 4 },
  dealer: 3,
  scores: [650, -150],
  hands: [
    ["QS", "QH", "QD", "JK", "9C", "9D", "6S", "5H", "4C", "TD", "8H"],
    { size: 11 },
    { size: 9 },
    { size: 10 },
  ],
  melds: [
    [
      { rank: "K", cards: ["KS", "KH", "KD", "2C"] },
      { rank: "7", cards: ["7S", "7C", "7H"] },
    ],
    [],
  ],
  bonus_cards: [["3H"], []],
  discard: ["5S", "9H", "JC", "8D"],
  stock: { size: 55 },
  turn: { seat: 0, phase: "draw" },
};
