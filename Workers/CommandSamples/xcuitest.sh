#!/bin/sh
# Runs a built XCUITest bundle and writes JUnit for FlowMatrix (docs/COMMAND-JOBS.md).
#   xcuitest.sh <output folder> <xcodebuild arguments...>
# Needs Xcode and xcresultparser (brew install a7ex/homebrew-formulae/xcresultparser); the .xctestrun comes from
# `xcodebuild build-for-testing` run once per build, before the matrix.
out="$1"; shift
xcodebuild test-without-building -xctestrun "${XCTESTRUN:-Build/Products/Catalog.xctestrun}" \
    -destination "${DESTINATION:-platform=iOS Simulator,name=iPhone 15}" \
    -resultBundlePath "$out/TestResults.xcresult" "$@"
status=$?
xcresultparser -o junit "$out/TestResults.xcresult" > "$out/junit.xml"
exit $status
