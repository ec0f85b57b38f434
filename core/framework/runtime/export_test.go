package runtime

// CheckTotalScore exposes checkTotalScore to the tests.
var CheckTotalScore = checkTotalScore
