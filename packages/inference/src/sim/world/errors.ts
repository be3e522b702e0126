/** The text is not one this world writes (a problem or a solution chunk it cannot read). */
export class WorldParseError extends Error {
  override readonly name = "WorldParseError";
}
