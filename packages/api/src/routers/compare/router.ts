import { createRouter } from "../../trpc";
import { calibration } from "./calibration";
import { candidates } from "./candidates";
import { checkpoints } from "./checkpoints";
import { disagreements } from "./disagreements";
import { item } from "./item";
import { scaling } from "./scaling";
import { threeWay } from "./three-way";

export const compareRouter = createRouter({ candidates, checkpoints, disagreements, item, threeWay, calibration, scaling });
