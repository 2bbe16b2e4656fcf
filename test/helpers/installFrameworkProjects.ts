import { FRAMEWORK_PROJECTS } from './FRAMEWORK_PROJECTS';
import { installedProject } from './packedPackage';

/** The directory of each project of FRAMEWORK_PROJECTS. */
export type FrameworkProjects = Record<keyof typeof FRAMEWORK_PROJECTS, string>;

/**
 * Every project of FRAMEWORK_PROJECTS, installed side by side (once per run: the first test file that asks pays for
 * the three npm installs at once, the others find them ready).
 */
export async function installFrameworkProjects(): Promise<FrameworkProjects> {
  const names = Object.keys(FRAMEWORK_PROJECTS) as Array<keyof typeof FRAMEWORK_PROJECTS>;
  const dirs = await Promise.all(names.map((name) => installedProject(name, FRAMEWORK_PROJECTS[name])));
  return Object.fromEntries(names.map((name, i) => [name, dirs[i]])) as FrameworkProjects;
}
