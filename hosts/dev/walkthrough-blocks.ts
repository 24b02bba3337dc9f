/** The bash blocks of docs/integration.md marked `<!-- curl-walkthrough -->`, in page order (a reader runs them so). */
export function walkthroughBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/<!-- curl-walkthrough -->\n```bash\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
}

/** Shell variables a block reads (`$NAME`, `${NAME}`) and sets (`NAME=`), upper-case names only. */
export function shellVariables(block: string): { readonly reads: Set<string>; readonly sets: Set<string> } {
  return {
    reads: new Set([...block.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!)),
    sets: new Set([...block.matchAll(/(?:^|[;\s(])([A-Z_][A-Z0-9_]*)=/gm)].map((m) => m[1]!)),
  };
}
