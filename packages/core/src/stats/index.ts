export * from "./random";
export * from "./confusion";
export * from "./kappa";
export * from "./bootstrap";
export * from "./calibration";
export * from "./beta";
export * from "./quadrature";
export * from "./nelder-mead";
