/** A program some tests need from the machine, which a Debian machine can install with apt-get. */
export interface DebianTool {
  /** What it is, for messages (`'Chromium (or Google Chrome)'`). */
  name: string;
  /** An environment variable naming the executable, tried first (`CHROME_PATH`); the global setup sets it when it finds one. */
  envVar: string;
  /** Executable names looked up on `PATH`, in order. */
  commands: string[];
  /** Absolute paths tried after `PATH` (the usual install locations). */
  paths: string[];
  /** The Debian package that provides it (`apt-get install -y <debianPackage>`). */
  debianPackage: string;
  /** Which tests need it, for messages. */
  neededBy: string;
}
