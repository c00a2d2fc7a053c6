# Reference values from R's pROC for rocsim's tests (the tests themselves never need R).
#
# Regenerate, from the repository root:
#     Rscript tests/data/proc/make_reference.R
# Needs R and pROC (Debian: apt-get install -y r-base-core r-cran-proc); base R only otherwise.
# Written with pROC 1.18.0 on R 4.2.2; runs in about a minute; deterministic.
#
# Every stored number sits next to the exact R code that produced it ("r_code"): each code
# block below is a character vector that is run with eval(parse(text = ...)) and also written
# verbatim into the JSON, so what is recorded is what ran. Blocks are run in the order they
# appear in this file, in one R session; each bootstrap block sets its own seed first, so
# its result depends only on the setup block and its own code.
#
# Output (next to this script): asah.csv, roc_curves.json, ci_se.json, bootstrap_se.json, ci_coords.json,
# ci_sp.json, ci_thresholds.json, coords_conventions.json, direction.json, partial_auc.json,
# interpolated_ties.json. See README.md there.

args <- commandArgs(trailingOnly = FALSE)
script <- sub("^--file=", "", args[grep("^--file=", args)])
out_dir <- if (length(script) == 1) dirname(normalizePath(script)) else "tests/data/proc"

# ---------------------------------------------------------------------------------------
# A minimal JSON writer (base R only). Numbers are written with the fewest of 15, 16 or 17
# significant digits that read back as the identical double, so Python's float() recovers
# R's values exactly. +-Inf are written as Infinity/-Infinity (Python's json reads them).
# A length-1 atomic vector is a scalar unless wrapped in I(); longer vectors are arrays.
# ---------------------------------------------------------------------------------------
num_txt <- function(v) {
  vapply(v, function(x) {
    if (is.na(x)) return("null")
    if (is.infinite(x)) return(if (x > 0) "Infinity" else "-Infinity")
    for (d in 15:17) {
      s <- sprintf(paste0("%.", d, "g"), x)
      if (as.numeric(s) == x) break
    }
    s
  }, "")
}
str_txt <- function(v) {
  v <- gsub("\\", "\\\\", v, fixed = TRUE)
  v <- gsub("\"", "\\\"", v, fixed = TRUE)
  v <- gsub("\n", "\\n", v, fixed = TRUE)
  v <- gsub("\t", "\\t", v, fixed = TRUE)
  paste0("\"", v, "\"")
}
to_json <- function(x, indent = 0) {
  pad <- strrep("  ", indent + 1)
  pad0 <- strrep("  ", indent)
  if (is.null(x)) return("null")
  if (is.list(x)) {
    if (length(x) == 0) return(if (is.null(names(x))) "[]" else "{}")
    items <- vapply(x, to_json, "", indent = indent + 1)
    if (!is.null(names(x))) items <- paste0(str_txt(names(x)), ": ", items)
    open <- if (is.null(names(x))) "[" else "{"
    close <- if (is.null(names(x))) "]" else "}"
    inline <- paste0(open, paste(items, collapse = ", "), close)
    if (!any(grepl("\n", items, fixed = TRUE)) && nchar(inline) + 2 * indent < 100) return(inline)
    return(paste0(open, "\n", pad, paste(items, collapse = paste0(",\n", pad)), "\n", pad0, close))
  }
  if (is.factor(x)) x <- as.character(x)
  vals <- if (is.logical(x)) ifelse(is.na(x), "null", ifelse(x, "true", "false"))
          else if (is.numeric(x)) num_txt(as.numeric(x))
          else if (is.character(x)) str_txt(x)
          else stop("unsupported type: ", class(x)[1])
  if (length(x) == 1 && !inherits(x, "AsIs")) return(vals)
  if (is.character(x) && length(x) > 1 && sum(nchar(vals)) + 2 * indent > 90) {
    # one string per line (used for R code)
    return(paste0("[\n", pad, paste(vals, collapse = paste0(",\n", pad)), "\n", pad0, "]"))
  }
  paste0("[", paste(vals, collapse = ", "), "]")
}
write_json <- function(x, name) {
  path <- file.path(out_dir, name)
  writeLines(to_json(x), path)
  cat(sprintf("wrote %s (%d bytes)\n", path, file.size(path)))
}
run <- function(code) eval(parse(text = code), envir = globalenv())
col <- function(x) I(unname(as.numeric(x)))

# ---------------------------------------------------------------------------------------
# Setup: data and the two ROC curves (positive class "Poor", higher score = more positive).
# ---------------------------------------------------------------------------------------
setup_code <- c(
  'suppressPackageStartupMessages(library(pROC))',
  'RNGkind("Mersenne-Twister", "Inversion", "Rejection")',
  'data(aSAH)',
  'r_s100b <- roc(aSAH$outcome, aSAH$s100b, levels = c("Good", "Poor"), direction = "<", quiet = TRUE)',
  'r_ndka <- roc(aSAH$outcome, aSAH$ndka, levels = c("Good", "Poor"), direction = "<", quiet = TRUE)'
)
run(setup_code)
n_neg <- length(r_s100b$controls)  # 72 "Good"
n_pos <- length(r_s100b$cases)     # 41 "Poor"
stopifnot(n_neg == 72, n_pos == 41)

meta <- list(
  R_version = R.version.string,
  pROC_version = as.character(packageVersion("pROC")),
  RNGkind = I(RNGkind()),
  data = "pROC's built-in aSAH (113 patients: 72 outcome Good = negatives, 41 Poor = positives); also in asah.csv",
  positive_class = "Poor",
  regenerate = "Rscript tests/data/proc/make_reference.R",
  quantiles = "pROC takes quantile(x, probs = c(0.025, 0.5, 0.975)), R's default type 7 (linear interpolation between order statistics, numpy's 'linear')",
  setup_r_code = I(setup_code)
)

# ---------------------------------------------------------------------------------------
# asah.csv: the data, exactly as in R
# ---------------------------------------------------------------------------------------
csv_code <- c(
  'write.csv(aSAH[, c("outcome", "s100b", "ndka", "wfns")], file.path(out_dir, "asah.csv"), row.names = FALSE)'
)
run(csv_code)
back <- read.csv(file.path(out_dir, "asah.csv"))
stopifnot(identical(back$s100b, aSAH$s100b), identical(back$ndka, aSAH$ndka),
          identical(back$outcome, as.character(aSAH$outcome)),
          identical(as.character(back$wfns), as.character(aSAH$wfns)))
cat("wrote asah.csv (round trip checked)\n")

# ---------------------------------------------------------------------------------------
# Points of each curve on the j/72, k/41 grid; which specificities sit on a vertical step.
# ---------------------------------------------------------------------------------------
curve_info <- function(r) {
  a <- coords(r, "all", ret = c("threshold", "specificity", "sensitivity"), transpose = FALSE)
  list(
    n_neg = length(r$controls), n_pos = length(r$cases),
    auc = as.numeric(auc(r)),
    r_code = 'coords(r, "all", ret = c("threshold", "specificity", "sensitivity"))  # j = specificity * n_neg, k = sensitivity * n_pos (rounded)',
    threshold = col(a$threshold),
    j = I(as.integer(round(a$specificity * length(r$controls)))),
    k = I(as.integer(round(a$sensitivity * length(r$cases))))
  )
}
write_json(list(meta = meta,
                note = "pROC's empirical ROC curves, in its coords() order (specificity increasing, sensitivity decreasing). Point i is (specificity j[i]/n_neg, sensitivity k[i]/n_pos); classified positive iff score >= the value that threshold[i] separates (threshold[i] is the midpoint between consecutive distinct scores). Consecutive points joined by a segment with both j and k changing come from a score shared by a positive and a negative (a tie): a diagonal segment.",
                s100b = curve_info(r_s100b), ndka = curve_info(r_ndka)),
           "roc_curves.json")

step_info <- function(r, sp) {
  lapply(sp, function(s) {
    on <- r$sensitivities[r$specificities == s]
    list(n_points_on_curve = length(on),
         vertical_step = length(on) > 1 && min(on) < max(on),
         k_min = if (length(on)) as.integer(round(min(on) * length(r$cases))) else NULL,
         k_max = if (length(on)) as.integer(round(max(on) * length(r$cases))) else NULL)
  })
}

# ---------------------------------------------------------------------------------------
# (a) ci.se at specificities on the grid j/72, with coords() at the same specificities
# ---------------------------------------------------------------------------------------
ci_se_block <- function(marker, j, seed) {
  r_name <- paste0("r_", marker)
  sp_name <- paste0("sp_", marker)
  grid_code <- c(sprintf('j_%s <- c(%s)', marker, paste(j, collapse = ", ")),
                 sprintf('%s <- j_%s / 72', sp_name, marker))
  run(grid_code)
  ci_code <- c(sprintf('set.seed(%d)', seed),
               sprintf('ci_se_%s <- ci.se(%s, specificities = %s, conf.level = 0.95, boot.n = 20000, boot.stratified = TRUE, progress = "none")',
                       marker, r_name, sp_name))
  ci <- run(ci_code)
  coords_code <- sprintf('coords(%s, x = %s, input = "specificity", ret = c("specificity", "sensitivity"))', r_name, sp_name)
  co <- run(coords_code)
  sp <- get(sp_name)
  r <- get(r_name)
  list(
    r_code_grid = I(grid_code),
    specificity_j = I(as.integer(j)),
    n_neg = 72L,
    specificity = col(sp),
    r_code = I(ci_code),
    seed = seed, boot_n = attr(ci, "boot.n"), boot_stratified = attr(ci, "boot.stratified"),
    conf_level = attr(ci, "conf.level"),
    se_lower_2.5 = col(unclass(ci)[, 1]), se_median = col(unclass(ci)[, 2]), se_upper_97.5 = col(unclass(ci)[, 3]),
    coords_r_code = coords_code,
    coords_specificity = col(co$specificity),
    coords_sensitivity = col(co$sensitivity),
    coords_sensitivity_k = I(round(co$sensitivity * 41, 6)),
    curve_at_specificity = step_info(r, sp)
  )
}
ci_se <- list(
  s100b = ci_se_block("s100b", c(1, 8, 12, 22, 36, 39, 46, 54, 58, 59, 60, 63, 65, 68, 70), 101L),
  ndka = ci_se_block("ndka", c(1, 3, 10, 12, 18, 22, 36, 37, 45, 51, 52, 55, 62, 67, 71), 102L)
)
write_json(list(meta = meta,
                note = "ci.se quantiles (2.5%, 50%, 97.5%) of the bootstrap sensitivity at each specificity j/72; coords_* is pROC's point estimate at the same specificities (coords_sensitivity_k = sensitivity * 41, not rounded to an integer when pROC interpolated). curve_at_specificity: how many points of the empirical curve have exactly that specificity, and the lowest/highest sensitivity (k/41) among them (vertical_step: more than one sensitivity).",
                s100b = ci_se$s100b, ndka = ci_se$ndka),
           "ci_se.json")

# ---------------------------------------------------------------------------------------
# (d) The same bootstrap replicates made explicitly (public API only), to get the mean and
#     standard deviation of the bootstrap sensitivity, which ci.se does not return.
#     pROC's ci.se(boot.stratified = TRUE) runs, per replicate, pROC:::stratified.ci.se:
#     sample(controls, replace = TRUE); sample(cases, replace = TRUE); the ROC curve of the
#     resample; coords(input = "specificity"). The loop below does exactly that from the
#     same seed, so its replicates are ci.se's (checked: quantiles agree).
# ---------------------------------------------------------------------------------------
boot_block <- function(marker, seed) {
  code <- c(
    sprintf('set.seed(%d)', seed),
    sprintf('boot_se_%s <- t(vapply(seq_len(20000), function(b) {', marker),
    sprintf('  controls <- sample(r_%s$controls, replace = TRUE)', marker),
    sprintf('  cases <- sample(r_%s$cases, replace = TRUE)', marker),
    '  rb <- roc(controls = controls, cases = cases, direction = "<", quiet = TRUE)',
    sprintf('  coords(rb, x = sp_%s, input = "specificity", ret = "sensitivity")$sensitivity', marker),
    sprintf('}, numeric(length(sp_%s))))', marker)
  )
  boot <- run(code)
  summary_code <- c(
    sprintf('colMeans(boot_se_%s)', marker),
    sprintf('apply(boot_se_%s, 2, sd)  # denominator B - 1', marker),
    sprintf('t(apply(boot_se_%s, 2, quantile, probs = c(0.025, 0.5, 0.975)))', marker),
    sprintf('colMeans(abs(boot_se_%s * 41 - round(boot_se_%s * 41)) > 1e-9)  # share of replicates off the k/41 grid (interpolated)', marker, marker)
  )
  q <- t(apply(boot, 2, quantile, probs = c(0.025, 0.5, 0.975)))
  ci <- get(paste0("ci_se_", marker))
  diff <- max(abs(unname(q) - unname(unclass(ci)[, 1:3])))
  stopifnot(diff < 1e-12)
  list(
    specificity_j = I(as.integer(round(get(paste0("sp_", marker)) * 72))),
    n_neg = 72L,
    specificity = col(get(paste0("sp_", marker))),
    r_code = I(code),
    seed = seed, B = nrow(boot),
    summary_r_code = I(summary_code),
    mean = col(colMeans(boot)),
    sd = col(apply(boot, 2, sd)),
    q2.5 = col(q[, 1]), q50 = col(q[, 2]), q97.5 = col(q[, 3]),
    share_interpolated = col(colMeans(abs(boot * 41 - round(boot * 41)) > 1e-9)),
    max_abs_diff_from_ci_se_quantiles = diff
  )
}
boot_se <- list(s100b = boot_block("s100b", 101L), ndka = boot_block("ndka", 102L))
write_json(list(meta = meta,
                note = "Mean, standard deviation (denominator B - 1) and quantiles of pROC's B = 20000 stratified bootstrap sensitivities at each specificity j/72 (the same specificities and seeds as ci_se.json). The replicates are remade with an explicit loop that does what pROC:::stratified.ci.se does, from the same seed, so they are ci.se's own replicates: max_abs_diff_from_ci_se_quantiles compares the quantiles with ci_se.json. Monte Carlo error: sd / sqrt(B) for the mean. share_interpolated: the share of replicates whose sensitivity is not a multiple of 1/41, i.e. where pROC interpolated linearly along a diagonal segment of the resampled curve (a score shared by a resampled positive and negative).",
                s100b = boot_se$s100b, ndka = boot_se$ndka),
           "bootstrap_se.json")

# ---------------------------------------------------------------------------------------
# (b) ci.sp at sensitivities on the grid k/41, with coords() at the same sensitivities
# ---------------------------------------------------------------------------------------
sp_grid_code <- c('k_s100b <- c(40, 38, 35, 33, 31, 27, 26, 24, 21, 20, 17, 14, 12, 7)',
                  'se_s100b <- k_s100b / 41')
run(sp_grid_code)
ci_sp_code <- c('set.seed(201)',
                'ci_sp_s100b <- ci.sp(r_s100b, sensitivities = se_s100b, conf.level = 0.95, boot.n = 20000, boot.stratified = TRUE, progress = "none")')
ci_sp <- run(ci_sp_code)
co_sp_code <- 'coords(r_s100b, x = se_s100b, input = "sensitivity", ret = c("sensitivity", "specificity"))'
co_sp <- run(co_sp_code)
horiz <- lapply(se_s100b, function(s) {
  on <- r_s100b$specificities[r_s100b$sensitivities == s]
  list(n_points_on_curve = length(on),
       horizontal_step = length(on) > 1 && min(on) < max(on),
       j_min = if (length(on)) as.integer(round(min(on) * 72)) else NULL,
       j_max = if (length(on)) as.integer(round(max(on) * 72)) else NULL)
})
write_json(list(meta = meta,
                note = "ci.sp quantiles (2.5%, 50%, 97.5%) of the bootstrap specificity at each sensitivity k/41 (s100b); coords_* is pROC's point estimate there (coords_specificity_j = specificity * 72, not rounded when pROC interpolated). curve_at_sensitivity: how many points of the empirical curve have exactly that sensitivity and the lowest/highest specificity (j/72) among them (horizontal_step: more than one).",
                s100b = list(
                  r_code_grid = I(sp_grid_code),
                  sensitivity_k = I(as.integer(round(se_s100b * 41))), n_pos = 41L,
                  sensitivity = col(se_s100b),
                  r_code = I(ci_sp_code),
                  seed = 201L, boot_n = attr(ci_sp, "boot.n"), boot_stratified = attr(ci_sp, "boot.stratified"),
                  conf_level = attr(ci_sp, "conf.level"),
                  sp_lower_2.5 = col(unclass(ci_sp)[, 1]), sp_median = col(unclass(ci_sp)[, 2]), sp_upper_97.5 = col(unclass(ci_sp)[, 3]),
                  coords_r_code = co_sp_code,
                  coords_sensitivity = col(co_sp$sensitivity),
                  coords_specificity = col(co_sp$specificity),
                  coords_specificity_j = I(round(co_sp$specificity * 72, 6)),
                  curve_at_sensitivity = horiz)),
           "ci_sp.json")

# ---------------------------------------------------------------------------------------
# (c) ci.thresholds at a few s100b thresholds (some equal to observed scores)
# ---------------------------------------------------------------------------------------
thr_grid_code <- 'thr_s100b <- c(0.055, 0.1, 0.205, 0.3, 0.52)'
run(thr_grid_code)
ci_thr_code <- c('set.seed(301)',
                 'ci_thr_s100b <- ci.thresholds(r_s100b, thresholds = thr_s100b, conf.level = 0.95, boot.n = 20000, boot.stratified = TRUE, progress = "none")')
ci_thr <- run(ci_thr_code)
co_thr_code <- 'coords(r_s100b, x = thr_s100b, input = "threshold", ret = c("threshold", "specificity", "sensitivity"))'
co_thr <- run(co_thr_code)
count_code <- c('sapply(thr_s100b, function(t) sum(r_s100b$controls < t))  # true negatives',
                'sapply(thr_s100b, function(t) sum(r_s100b$cases >= t))  # true positives')
tn <- run(count_code[1]); tp <- run(count_code[2])
write_json(list(meta = meta,
                note = "ci.thresholds: at each fixed threshold t, quantiles (2.5%, 50%, 97.5%) of the bootstrap specificity and, separately, of the bootstrap sensitivity, each at conf.level = 0.95 (per axis; no joint adjustment). A score s is called positive iff s >= t (direction '<'). coords_* is the point estimate; tn/tp count controls < t and cases >= t in the data.",
                s100b = list(
                  r_code_grid = thr_grid_code,
                  threshold = col(thr_s100b),
                  threshold_is_observed_score = I(thr_s100b %in% aSAH$s100b),
                  r_code = I(ci_thr_code),
                  seed = 301L, boot_n = attr(ci_thr, "boot.n"), boot_stratified = attr(ci_thr, "boot.stratified"),
                  conf_level = attr(ci_thr, "conf.level"),
                  sp_lower_2.5 = col(ci_thr$specificity[, 1]), sp_median = col(ci_thr$specificity[, 2]),
                  sp_upper_97.5 = col(ci_thr$specificity[, 3]),
                  se_lower_2.5 = col(ci_thr$sensitivity[, 1]), se_median = col(ci_thr$sensitivity[, 2]),
                  se_upper_97.5 = col(ci_thr$sensitivity[, 3]),
                  coords_r_code = co_thr_code,
                  coords_specificity = col(co_thr$specificity),
                  coords_sensitivity = col(co_thr$sensitivity),
                  counts_r_code = I(count_code),
                  tn = I(as.integer(tn)), tp = I(as.integer(tp)), n_neg = 72L, n_pos = 41L)),
           "ci_thresholds.json")

# ---------------------------------------------------------------------------------------
# coords() off the grid: does pROC interpolate? Compare with the straight line between the
# two neighbouring curve points (pROC's own formula) and with a pure step reading.
# ---------------------------------------------------------------------------------------
off_block <- function(r_name, input, x_code) {
  r <- get(r_name)
  x <- run(x_code)
  ret <- if (input == "specificity") "sensitivity" else "specificity"
  code <- sprintf('coords(%s, x = %s, input = "%s", ret = c("specificity", "sensitivity"))',
                  r_name, x_code, input)
  co <- run(code)
  r <- pROC:::sort.roc(r)  # specificity increasing, sensitivity decreasing (as coords does)
  inp <- if (input == "specificity") r$specificities else r$sensitivities
  out <- if (input == "specificity") r$sensitivities else r$specificities
  nb <- lapply(x, function(v) {
    if (input == "specificity") {
      hi <- match(TRUE, inp > v); lo <- hi - 1   # last point below, first point above
    } else {
      hi <- match(TRUE, inp < v); lo <- hi - 1   # inp decreasing
    }
    line <- out[hi] + (v - inp[hi]) / (inp[lo] - inp[hi]) * (out[lo] - out[hi])
    list(point_before = c(specificity_j = round(r$specificities[lo] * 72, 6), sensitivity_k = round(r$sensitivities[lo] * 41, 6)),
         point_after = c(specificity_j = round(r$specificities[hi] * 72, 6), sensitivity_k = round(r$sensitivities[hi] * 41, 6)),
         straight_line_value = line)
  })
  list(
    input = input, x = col(x),
    r_code = code,
    coords_specificity = col(co$specificity), coords_sensitivity = col(co$sensitivity),
    coords_returned = col(co[[ret]]),
    neighbours = lapply(nb, function(b) list(
      point_before = as.list(b$point_before), point_after = as.list(b$point_after),
      straight_line_value = b$straight_line_value)),
    coords_equals_straight_line = I(vapply(seq_along(x), function(i)
      isTRUE(all.equal(co[[ret]][i], nb[[i]]$straight_line_value, tolerance = 1e-12)), TRUE))
  )
}
write_json(list(meta = meta,
                note = "coords() at values off the j/72 (specificity) or k/41 (sensitivity) grid. neighbours: the two consecutive curve points around x in pROC's sorted order (specificity increasing, sensitivity decreasing), point_before and point_after, as j/72 and k/41 counts; straight_line_value: the linear interpolation between them. coords_equals_straight_line: pROC returned exactly that. Where the two neighbours have the same sensitivity (horizontal segment, no tie) the interpolation is flat; where both change (a score shared by a positive and a negative: a diagonal segment) it is a genuine linear interpolation.",
                s100b_specificity = off_block("r_s100b", "specificity", "c(0.15, 0.45, 0.7, 0.81, 0.95)"),
                s100b_specificity_on_grid_not_vertex = off_block("r_s100b", "specificity", "c(1, 12, 36, 54, 68) / 72"),
                s100b_sensitivity = off_block("r_s100b", "sensitivity", "c(0.95, 0.85, 0.6, 0.36)"),
                ndka_specificity = off_block("r_ndka", "specificity", "c(0.3, 0.6, 0.9)")),
           "coords_conventions.json")
# ---------------------------------------------------------------------------------------
# direction.json: a marker scored the other way round. pROC's roc() chooses the direction
# by the classes' medians (direction = "auto", its default); roc.test() compares two curves
# of opposite directions, with a warning.
# ---------------------------------------------------------------------------------------
direction_code <- c(
  'd_auto <- roc(aSAH$outcome, -aSAH$s100b, levels = c("Good", "Poor"), quiet = TRUE)',
  'd_forced <- roc(aSAH$outcome, -aSAH$s100b, levels = c("Good", "Poor"), direction = "<", quiet = TRUE)',
  'd_ndka <- roc(aSAH$outcome, -aSAH$ndka, levels = c("Good", "Poor"), quiet = TRUE)',
  'd_warning <- NULL',
  'd_test <- withCallingHandlers(roc.test(r_s100b, d_ndka, method = "delong"), warning = function(w) { d_warning <<- conditionMessage(w); invokeRestart("muffleWarning") })'
)
run(direction_code)
write_json(list(meta = meta,
                note = "Scores negated: -s100b and -ndka (higher = more positive no longer holds). auto: pROC's default direction, chosen by median(controls) <= median(cases) (\"<\") or not (\">\"); forced: direction \"<\" (higher score = case). roc_test: roc.test(r_s100b, roc of -ndka with direction auto), DeLong, two-sided; warning: the message it gave.",
                r_code = I(direction_code),
                neg_s100b_auto = list(direction = d_auto$direction, auc = as.numeric(auc(d_auto))),
                neg_s100b_forced = list(direction = d_forced$direction, auc = as.numeric(auc(d_forced))),
                neg_ndka_auto = list(direction = d_ndka$direction, auc = as.numeric(auc(d_ndka))),
                roc_test = list(p_value = unname(d_test$p.value), statistic = unname(d_test$statistic),
                                auc1 = unname(d_test$estimate[1]), auc2 = unname(d_test$estimate[2]),
                                warning = if (is.null(d_warning)) "" else d_warning)),
           "direction.json")
# ---------------------------------------------------------------------------------------
# partial_auc.json: partial areas over a range of specificities (FPR = 1 - specificity) or
# of sensitivities, raw and with McClish's correction (partial.auc.correct = TRUE), on the
# two continuous markers and on wfns (an ordinal 1-5 score: ties within and across classes).
# ---------------------------------------------------------------------------------------
pauc_code <- c(
  'r_wfns <- roc(aSAH$outcome, as.numeric(aSAH$wfns), levels = c("Good", "Poor"), direction = "<", quiet = TRUE)',
  'pauc <- function(r, range, focus, correct) as.numeric(auc(r, partial.auc = range, partial.auc.focus = focus, partial.auc.correct = correct))',
  'pauc_ranges <- list(c(1, 0.9), c(1, 0.8), c(0.9, 0.6), c(1, 0.5), c(0.75, 0.25))'
)
run(pauc_code)
pauc_block <- function(name, focus) {
  r <- get(name)
  list(
    roc = name, focus = focus,
    range = lapply(pauc_ranges, function(x) I(x)),
    raw = col(sapply(pauc_ranges, function(x) pauc(r, x, focus, FALSE))),
    corrected = col(sapply(pauc_ranges, function(x) pauc(r, x, focus, TRUE)))
  )
}
write_json(list(meta = meta,
                note = "pauc(r, range, focus, correct) for every range in pauc_ranges, in order: raw (partial.auc.correct = FALSE) and corrected (TRUE). focus specificity: range = (specificity high, low), FPR from 1 - high to 1 - low; focus sensitivity: a range of sensitivities.",
                r_code = I(pauc_code),
                s100b_specificity = pauc_block("r_s100b", "specificity"),
                ndka_specificity = pauc_block("r_ndka", "specificity"),
                wfns_specificity = pauc_block("r_wfns", "specificity"),
                s100b_sensitivity = pauc_block("r_s100b", "sensitivity"),
                wfns_sensitivity = pauc_block("r_wfns", "sensitivity")),
           "partial_auc.json")
# ---------------------------------------------------------------------------------------
# interpolated_ties.json: ci.se and ci.sp where the curve has diagonal segments (a score
# shared by a case and a control): on wfns (an ordinal 1-5 score, nearly every point of the
# grid on a diagonal) and on s100b (scores rounded to 0.01), two seeds each. pROC reads the
# sensitivity at a specificity (and the specificity at a sensitivity) linearly along the
# resampled curve's diagonal segments; the top of a vertical step at a vertex.
# ---------------------------------------------------------------------------------------
interp_block <- function(marker, what, grid, seed) {
  roc_name <- paste0("r_", marker)
  if (what == "se") {
    code <- c(sprintf('set.seed(%d)', seed),
              sprintf('ci.se(%s, specificities = c(%s) / 72, conf.level = 0.95, boot.n = 20000, boot.stratified = TRUE, progress = "none")',
                      roc_name, paste(grid, collapse = ", ")))
    co <- coords(get(roc_name), x = grid / 72, input = "specificity", ret = "sensitivity")$sensitivity
  } else {
    code <- c(sprintf('set.seed(%d)', seed),
              sprintf('ci.sp(%s, sensitivities = c(%s) / 41, conf.level = 0.95, boot.n = 20000, boot.stratified = TRUE, progress = "none")',
                      roc_name, paste(grid, collapse = ", ")))
    co <- coords(get(roc_name), x = grid / 41, input = "sensitivity", ret = "specificity")$specificity
  }
  ci <- unclass(run(code))
  list(r_code = I(code), seed = seed, grid = I(as.integer(grid)),
       grid_denominator = if (what == "se") 72L else 41L,
       coords = col(co), q2.5 = col(ci[, 1]), q50 = col(ci[, 2]), q97.5 = col(ci[, 3]))
}
interp_code <- c(
  'r_wfns <- roc(aSAH$outcome, as.numeric(aSAH$wfns), levels = c("Good", "Poor"), direction = "<", quiet = TRUE)',
  'se_grid <- c(2, 6, 10, 14, 18, 22, 26, 30, 34, 38, 42, 46, 50, 54, 58, 62, 66, 70)',
  'sp_grid <- c(2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35, 38)'
)
run(interp_code)
write_json(list(meta = meta,
                note = "Quantiles (2.5%, 50%, 97.5%, R's type 7) of pROC's B = 20000 stratified bootstrap sensitivities at specificities grid / 72 (ci_se_*) and specificities at sensitivities grid / 41 (ci_sp_*), two seeds each; coords: pROC's point estimate there (interpolated along a diagonal segment).",
                r_code = I(interp_code),
                wfns_se_seed1 = interp_block("wfns", "se", se_grid, 301L),
                wfns_se_seed2 = interp_block("wfns", "se", se_grid, 302L),
                wfns_sp_seed1 = interp_block("wfns", "sp", sp_grid, 303L),
                wfns_sp_seed2 = interp_block("wfns", "sp", sp_grid, 304L),
                s100b_se_seed1 = interp_block("s100b", "se", se_grid, 305L),
                s100b_se_seed2 = interp_block("s100b", "se", se_grid, 306L),
                s100b_sp_seed1 = interp_block("s100b", "sp", sp_grid, 307L),
                s100b_sp_seed2 = interp_block("s100b", "sp", sp_grid, 308L)),
           "interpolated_ties.json")

# ---------------------------------------------------------------------------------------
# (h) ci.coords: metrics at fixed s100b thresholds (rocsim.operating_point_ci)
# ---------------------------------------------------------------------------------------
coords_ret <- c("sensitivity", "specificity", "ppv", "npv", "accuracy", "youden")
ci_coords_code <- c('set.seed(801)',
                    'ci_coords_s100b <- ci.coords(r_s100b, x = thr_s100b, input = "threshold", ret = c("sensitivity", "specificity", "ppv", "npv", "accuracy", "youden"), conf.level = 0.95, boot.n = 20000, boot.stratified = TRUE, progress = "none")')
ci_coords <- run(ci_coords_code)
point_code <- 'coords(r_s100b, x = thr_s100b, input = "threshold", ret = c("sensitivity", "specificity", "ppv", "npv", "accuracy", "youden"), transpose = FALSE)'
point <- run(point_code)
metric_block <- function(m) list(
  value = col(point[[m]]),
  lower_2.5 = col(ci_coords[[m]][, 1]), median = col(ci_coords[[m]][, 2]),
  upper_97.5 = col(ci_coords[[m]][, 3]))
write_json(list(meta = meta,
                note = "ci.coords at fixed thresholds t of s100b (positive iff s >= t, direction '<'): quantiles (2.5%, 50%, 97.5%, type 7) of B = 20000 stratified bootstrap replicates of each metric; value: coords' point estimate. pROC's youden is sensitivity + specificity (rocsim's Youden's J is that minus 1). A replicate where a metric is undefined (ppv without a predicted positive) is NA in pROC and dropped by quantile(na.rm = TRUE).",
                s100b = list(
                  r_code_grid = thr_grid_code,
                  threshold = col(thr_s100b),
                  r_code = I(ci_coords_code),
                  seed = 801L, boot_n = 20000L, boot_stratified = TRUE, conf_level = 0.95,
                  coords_r_code = point_code,
                  sensitivity = metric_block("sensitivity"),
                  specificity = metric_block("specificity"),
                  ppv = metric_block("ppv"),
                  npv = metric_block("npv"),
                  accuracy = metric_block("accuracy"),
                  youden = metric_block("youden"))),
           "ci_coords.json")
cat("done\n")
