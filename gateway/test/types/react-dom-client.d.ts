/**
 * The one function of `react-dom/client` the useChat test page uses (`@types/react-dom` is not installed: react-dom
 * ships no types of its own).
 */
declare module 'react-dom/client' {
  import type { ReactNode } from 'react';

  /** A React root (react-dom 19). */
  export interface Root {
    render(children: ReactNode): void;
    unmount(): void;
  }
  /** Creates a root in `container`. */
  export function createRoot(container: Element): Root;
}
